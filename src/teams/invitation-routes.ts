// Invitations into a project over HTTP, for the Settings members page (docs/roles.md): pending
// members with their link's expiry, inviting by e-mail, and a new link for a pending member.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { adminBeforeBody, authorizeProjectInPath, principalOf, requestActor, requireAdmin, type AuthContext } from '../auth/credentials.ts';
import type { Pool } from '../db/pool.ts';
import { dataOf, itemsOf } from '../http/answers.ts';
import { invitedMemberSchema, passwordLinkSchema, pendingMemberSchema } from '../http/answer-schemas/teams.ts';
import { invalidBody, issueDetails, storableText } from '../http/body-fields.ts';
import { errors } from '../http/errors.ts';
import { defineRoute, JSON_BODY_ERRORS } from '../http/route-contract.ts';
import { isUuid } from '../protocol/identifiers.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { inviteMember, mayIssueLink, reissueInvitation, type Issuer } from './invitations.ts';
import { userView } from './routes.ts';
import { listPendingMembers, readAccountClaims } from './users-sql.ts';

export interface InvitationRouteDeps {
  auth: AuthContext;
  pool: Pool;
}

/** No `owner` field: an invitation never makes an owner (a strict object refuses the key). */
export const invitationBodySchema = z.strictObject({
  email: storableText(),
  name: storableText().optional(),
  role: z.enum(['viewer', 'operator', 'admin']),
});

const ts = (date: Date) => formatTimestamp(date.getTime());

/** Owners and the admin token act for the whole instance; a project admin for their project. */
async function issuerOf(request: FastifyRequest): Promise<Issuer> {
  const principal = await principalOf(request);
  return { instanceWide: principal?.kind === 'admin-token' || (principal?.kind === 'user' && principal.user.owner) };
}

export function registerInvitationRoutes(app: FastifyInstance, deps: InvitationRouteDeps): void {
  const base = {
    tag: 'users',
    credential: (request: FastifyRequest) => requireAdmin(request, deps.auth),
    security: ['adminToken'],
    query: {},
  } as const;
  const common = ['unauthorized', 'forbidden', 'too_many_attempts', 'invalid_query', 'bad_url', 'query_timeout', 'project_not_found', 'internal_error'] as const;
  const bodyErrors = JSON_BODY_ERRORS;
  const projectOf = (request: FastifyRequest) => authorizeProjectInPath(request, deps.auth, (request.params as { projectId: string }).projectId);
  const now = deps.auth.now;

  defineRoute(app, {
    method: 'GET',
    url: '/v1/projects/:projectId/invitations',
    contract: {
      ...base,
      summary: "Members who have not joined yet, with their link's expiry (the project's admins)",
      answers: { 200: { description: 'Pending members by e-mail.', schema: dataOf(itemsOf(pendingMemberSchema)) } },
      errors: common,
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      const issuer = await issuerOf(request);
      const items = [];
      for (const p of await listPendingMembers(deps.pool, projectId)) {
        const claims = issuer.instanceWide ? null : await readAccountClaims(deps.pool, p.user.id, projectId, new Date(now()));
        items.push({
          ...userView(p.user),
          role: p.role,
          linkExpiresAt: p.linkExpiresAt === null ? null : ts(p.linkExpiresAt),
          linkExpired: p.linkExpiresAt === null || p.linkExpiresAt.getTime() <= now(),
          // The same rule the link route applies, so the page offers "New link" only where it works.
          canIssueLink: issuer.instanceWide || (claims !== null && mayIssueLink(claims, projectId, issuer)),
        });
      }
      return { data: { items } };
    },
  });

  defineRoute(app, {
    method: 'POST',
    // The credential is checked before any body is read (docs/hostile-input.md).
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/projects/:projectId/invitations',
    contract: {
      ...base,
      summary: "Invite a person by e-mail with a role, at most admin; answers the one-time link (the project's admins)",
      body: { schema: invitationBodySchema },
      answers: { 201: { description: 'The member, and the invitation link for a new account, shown once.', schema: dataOf(invitedMemberSchema) } },
      errors: [...common, ...bodyErrors, 'already_member', 'email_taken'],
    },
    handler: async (request, reply) => {
      const projectId = await projectOf(request);
      const parsed = invitationBodySchema.safeParse(request.body ?? null);
      if (!parsed.success) throw invalidBody(issueDetails(parsed.error.issues));
      const input = { email: parsed.data.email, role: parsed.data.role, ...(parsed.data.name !== undefined ? { name: parsed.data.name } : {}) };
      const invited = await inviteMember(deps.pool, projectId, input, await requestActor(request, deps.auth), await issuerOf(request), now());
      const link = invited.link && { url: invited.link.path, expiresAt: ts(invited.link.expiresAt) };
      const { id, email, displayName: name } = invited.user;
      return reply.status(201).send({ data: { member: { id, email, name, role: invited.role }, link } });
    },
  });

  defineRoute(app, {
    method: 'POST',
    url: '/v1/projects/:projectId/invitations/:userId',
    contract: {
      ...base,
      summary: "A new invitation link for a pending member; older links stop working (the project's admins)",
      answers: { 201: { description: 'The new link, shown once.', schema: dataOf(passwordLinkSchema) } },
      errors: [...common, 'not_found'],
    },
    handler: async (request, reply) => {
      const projectId = await projectOf(request);
      const userId = (request.params as { userId: string }).userId;
      if (!isUuid(userId)) throw errors.notFound('No pending invitation for this person in the project.');
      const link = await reissueInvitation(deps.pool, projectId, userId.toLowerCase(), await requestActor(request, deps.auth), await issuerOf(request), now());
      return reply.status(201).send({ data: { url: link.path, expiresAt: ts(link.expiresAt) } });
    },
  });
}
