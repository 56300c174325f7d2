// Answers of accounts, memberships, personal tokens and sessions (docs/roles.md).
import { z } from 'zod';
import { timestampSchema } from '../answers.ts';

const roleSchema = z.enum(['viewer', 'operator', 'admin']);
// The names are src/auth/policy.ts's ACTION_ROUTES keys (the kernel imports no capability).
const actionSchema = z.string().describe('An action of the interface, named after the route it calls (src/auth/policy.ts).');

export const principalSchema = z.strictObject({
  signedInAs: z.enum(['admin-token', 'user']),
  user: z.strictObject({ id: z.uuid(), email: z.string(), name: z.string(), owner: z.boolean() }).nullable(),
  actions: z.array(actionSchema).describe('Instance-wide actions allowed (routes of owners and the admin token).'),
  projects: z
    .array(
      z.strictObject({
        projectId: z.uuid(),
        slug: z.string(),
        role: roleSchema,
        actions: z.array(actionSchema).describe("The actions the role allows in the project, from the server's own route rules."),
        admins: z.array(z.strictObject({ email: z.string(), name: z.string() })).describe("The project's admins (a few), listed when the role is below admin; empty otherwise."),
      }),
    )
    .describe('Every project reached, with the role acted with.'),
});

export const userSchema = z
  .strictObject({
    id: z.uuid(),
    email: z.string(),
    name: z.string(),
    state: z.enum(['active', 'disabled']),
    owner: z.boolean(),
    hasPassword: z.boolean(),
    createdAt: timestampSchema,
    lastSignInAt: timestampSchema.nullable(),
  })
  .meta({ id: 'User', description: 'A person with their own sign-in.' });

export const memberSchema = userSchema.extend({ role: roleSchema }).meta({ id: 'Member', description: 'A user with their role in the project.' });

/** The members route's answer: the members, and the owners, who act as admin in every project. */
export const membersAnswerSchema = z.strictObject({
  items: z.array(memberSchema),
  owners: z.array(userSchema).describe("The instance's owners: admin in every project whether or not they hold a role in it."),
});

export const passwordLinkSchema = z.strictObject({
  url: z.string().describe('The one-time link to set a password; shown once, valid 72 hours.'),
  expiresAt: timestampSchema,
});

export const createdUserSchema = z.strictObject({ user: userSchema, link: passwordLinkSchema.nullable() });

export const personalTokenSchema = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  createdAt: timestampSchema,
  expiresAt: timestampSchema.nullable(),
  lastUsedAt: timestampSchema.nullable(),
});

export const createdTokenSchema = z.strictObject({ token: personalTokenSchema, secret: z.string().describe('Shown once, never again.') });

export const userSessionSchema = z.strictObject({
  id: z.uuid(),
  createdAt: timestampSchema,
  lastSeenAt: timestampSchema,
  client: z.string(),
  userAgent: z.string(),
  current: z.boolean(),
});

export const pendingMemberSchema = userSchema
  .extend({
    role: roleSchema,
    linkExpiresAt: timestampSchema.nullable().describe("The newest unused link's expiry, passed or not; null when none is left."),
    linkExpired: z.boolean(),
    canIssueLink: z.boolean().describe('Whether the caller may issue this member a new link (docs/roles.md, "Account lifecycle").'),
  })
  .meta({ id: 'PendingMember', description: 'A member who has not set a password or signed in yet.' });

/**
 * The invited person as the inviter needs them: who, and the role given. Never the account's
 * owner flag, password state or times, which inviting an e-mail that has an account would
 * otherwise show a project admin.
 */
export const invitedPersonSchema = z
  .strictObject({ id: z.uuid(), email: z.string(), name: z.string(), role: roleSchema })
  .meta({ id: 'InvitedPerson', description: 'The person invited and the role given in the project.' });

export const invitedMemberSchema = z.strictObject({
  member: invitedPersonSchema,
  link: passwordLinkSchema.nullable().describe('Null when the e-mail already had an account: the person signs in as before.'),
});
