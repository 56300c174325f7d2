// Accounts, memberships and one's own tokens and sessions over HTTP (docs/roles.md). The same
// registrations serve /v1 (admin token, personal token) and /ui/api (the session cookie).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { authorizeProjectInPath, forbidden, requestActor, requireAdmin, type AuthContext, type Principal } from '../auth/credentials.ts';
import { endUserSessionById, listUserSessions } from '../auth/user-sessions.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { dataOf, itemsOf } from '../http/answers.ts';
import { createdTokenSchema, createdUserSchema, membersAnswerSchema, passwordLinkSchema, personalTokenSchema, principalSchema, userSchema, userSessionSchema } from '../http/answer-schemas/teams.ts';
import { storableText } from '../http/body-fields.ts';
import { errors } from '../http/errors.ts';
import { ADMIN_ROUTE_ERRORS, defineRoute, JSON_BODY_ERRORS } from '../http/route-contract.ts';
import { isUuid } from '../protocol/identifiers.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { changeUser, createUser, grantRole, resetPassword, revokeRole, type PasswordLink } from './accounts.ts';
import { describePrincipal } from './describe.ts';
import { createPersonalToken, revokeOwnToken } from './tokens.ts';
import { listMembers, listOwners, listPersonalTokens, listUsers, type TokenRow, type UserRow } from './users-sql.ts';

export interface TeamRouteDeps {
  auth: AuthContext;
  pool: Pool;
  keyring: Keyring;
}

const ts = (date: Date | null) => (date === null ? null : formatTimestamp(date.getTime()));

export function userView(u: UserRow) {
  return { id: u.id, email: u.email, name: u.displayName, state: u.state, owner: u.owner, hasPassword: u.hasPassword, createdAt: ts(u.createdAt)!, lastSignInAt: ts(u.lastSignInAt) };
}
const tokenView = (t: TokenRow) => ({ id: t.id, name: t.name, prefix: t.prefix, createdAt: ts(t.createdAt)!, expiresAt: ts(t.expiresAt), lastUsedAt: ts(t.lastUsedAt) });
const linkView = (link: PasswordLink) => ({ url: link.path, expiresAt: ts(link.expiresAt)! });

const newUserBody = z.strictObject({ email: storableText(), name: storableText().optional(), owner: z.boolean().optional() });
const userChangeBody = z.strictObject({ name: storableText().optional(), state: z.enum(['active', 'disabled']).optional(), owner: z.boolean().optional() });
const memberBody = z.strictObject({ role: z.enum(['viewer', 'operator', 'admin']) });
const newTokenBody = z.strictObject({ name: storableText(), expiresAt: z.iso.datetime({ offset: true }).nullable().optional() });

function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw errors.invalidRequest(issue.path.join('.'), issue.message);
  }
  return parsed.data;
}

function uuidParam(request: FastifyRequest, name: string, what: string): string {
  const value = (request.params as Record<string, string>)[name]!;
  if (!isUuid(value)) throw errors.notFound(`The ${what} was not found.`);
  return value.toLowerCase();
}

function person(principal: Principal): Extract<Principal, { kind: 'user' }> {
  // The admin token is no person: it has no tokens or sessions of its own.
  if (principal.kind !== 'user') throw forbidden();
  return principal;
}

export function registerTeamRoutes(app: FastifyInstance, deps: TeamRouteDeps): void {
  const base = {
    credential: (request: FastifyRequest) => requireAdmin(request, deps.auth),
    security: ['adminToken'],
    query: {},
  } as const;
  const common = ADMIN_ROUTE_ERRORS;
  const bodyErrors = JSON_BODY_ERRORS;
  const users = { ...base, tag: 'users' } as const;
  const me = { ...base, tag: 'me' } as const;
  const now = deps.auth.now;

  defineRoute(app, {
    method: 'GET',
    url: '/v1/users',
    contract: { ...users, summary: 'List users (owners)', answers: { 200: { description: 'Every user.', schema: dataOf(itemsOf(userSchema)) } }, errors: common },
    handler: async () => ({ data: { items: (await listUsers(deps.pool)).map(userView) } }),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/v1/users',
    contract: {
      ...users,
      summary: 'Create a user with a one-time invitation link (owners)',
      body: { schema: newUserBody },
      answers: { 201: { description: 'The user and the invitation link, shown once.', schema: dataOf(createdUserSchema) } },
      errors: [...common, ...bodyErrors, 'email_taken'],
    },
    handler: async (request, reply) => {
      const body = parseBody(newUserBody, request.body);
      const input = { email: body.email, ...(body.name !== undefined ? { displayName: body.name } : {}), owner: body.owner === true };
      const created = await createUser(deps.pool, input, await requestActor(request, deps.auth), now());
      return reply.status(201).send({ data: { user: userView(created.user), link: created.link && linkView(created.link) } });
    },
  });

  defineRoute(app, {
    method: 'PATCH',
    url: '/v1/users/:userId',
    contract: {
      ...users,
      summary: "Change a user's name, state or owner flag (owners)",
      body: { schema: userChangeBody },
      answers: { 200: { description: 'The user.', schema: dataOf(userSchema) } },
      errors: [...common, ...bodyErrors, 'not_found'],
    },
    handler: async (request) => {
      const userId = uuidParam(request, 'userId', 'user');
      const body = parseBody(userChangeBody, request.body);
      const change = { ...(body.name !== undefined ? { displayName: body.name.trim() } : {}), ...(body.state ? { state: body.state } : {}), ...(body.owner !== undefined ? { owner: body.owner } : {}) };
      return { data: userView(await changeUser(deps.pool, userId, change, await requestActor(request, deps.auth), now())) };
    },
  });

  defineRoute(app, {
    method: 'POST',
    url: '/v1/users/:userId/password-links',
    contract: {
      ...users,
      summary: "Reset a user's password: ends their sessions, answers a one-time link (owners)",
      answers: { 201: { description: 'The reset link, shown once.', schema: dataOf(passwordLinkSchema) } },
      errors: [...common, 'not_found'],
    },
    handler: async (request, reply) => {
      const userId = uuidParam(request, 'userId', 'user');
      const link = await resetPassword(deps.pool, userId, await requestActor(request, deps.auth), now());
      return reply.status(201).send({ data: linkView(link) });
    },
  });

  const member = { ...base, tag: 'users', errors: [...common, 'project_not_found', 'not_found'] } as const;
  defineRoute(app, {
    method: 'GET',
    url: '/v1/projects/:projectId/members',
    contract: { ...member, summary: "The project's members and their roles (the project's admins)", answers: { 200: { description: 'Members by e-mail, and the owners.', schema: dataOf(membersAnswerSchema) } } },
    handler: async (request) => {
      const projectId = await authorizeProjectInPath(request, deps.auth, (request.params as { projectId: string }).projectId);
      const items = (await listMembers(deps.pool, projectId)).map((m) => ({ ...userView(m.user), role: m.role }));
      return { data: { items, owners: (await listOwners(deps.pool)).map(userView) } };
    },
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/v1/projects/:projectId/members/:userId',
    contract: { ...member, summary: "Give a user a role in the project (the project's admins)", body: { schema: memberBody }, answers: { 204: { description: 'Granted.' } }, errors: [...member.errors, ...bodyErrors] },
    handler: async (request, reply) => {
      const projectId = await authorizeProjectInPath(request, deps.auth, (request.params as { projectId: string }).projectId);
      const userId = uuidParam(request, 'userId', 'user');
      const { role } = parseBody(memberBody, request.body);
      await grantRole(deps.pool, projectId, userId, role, await requestActor(request, deps.auth));
      return reply.status(204).send();
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    url: '/v1/projects/:projectId/members/:userId',
    contract: { ...member, summary: "Remove a user's role in the project (the project's admins)", answers: { 204: { description: 'Removed.' } } },
    handler: async (request, reply) => {
      const projectId = await authorizeProjectInPath(request, deps.auth, (request.params as { projectId: string }).projectId);
      const userId = uuidParam(request, 'userId', 'member');
      if (!(await revokeRole(deps.pool, projectId, userId, await requestActor(request, deps.auth)))) throw errors.notFound('The member was not found.');
      return reply.status(204).send();
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/me',
    contract: { ...me, summary: 'Who the credential signs in, with the role per project', answers: { 200: { description: 'The signed-in principal.', schema: dataOf(principalSchema) } }, errors: common },
    handler: async (_request, _reply, { credential }) => ({ data: await describePrincipal(deps.pool, credential) }),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/me/tokens',
    contract: { ...me, summary: 'My personal access tokens', answers: { 200: { description: 'Active tokens; secrets are never shown again.', schema: dataOf(itemsOf(personalTokenSchema)) } }, errors: common },
    handler: async (_request, _reply, { credential }) => ({ data: { items: (await listPersonalTokens(deps.pool, person(credential).user.id)).map(tokenView) } }),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/v1/me/tokens',
    contract: { ...me, summary: 'Create a personal access token (shown once)', body: { schema: newTokenBody }, answers: { 201: { description: 'The token and its secret.', schema: dataOf(createdTokenSchema) } }, errors: [...common, ...bodyErrors] },
    handler: async (request, reply, { credential }) => {
      const owner = person(credential);
      const body = parseBody(newTokenBody, request.body);
      const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
      const created = await createPersonalToken(deps.pool, deps.keyring, { userId: owner.user.id, name: body.name, expiresAt, madeWithPrefix: owner.tokenPrefix }, await requestActor(request, deps.auth), now());
      return reply.status(201).send({ data: { token: tokenView(created.token), secret: created.secret } });
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    url: '/v1/me/tokens/:tokenId',
    contract: { ...me, summary: 'Revoke one of my personal access tokens', answers: { 204: { description: 'Revoked.' } }, errors: [...common, 'not_found'] },
    handler: async (request, reply, { credential }) => {
      await revokeOwnToken(deps.pool, person(credential).user.id, uuidParam(request, 'tokenId', 'token'), await requestActor(request, deps.auth), now());
      return reply.status(204).send();
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/me/sessions',
    contract: { ...me, summary: 'My sessions of the web interface', answers: { 200: { description: 'Live and recent sessions.', schema: dataOf(itemsOf(userSessionSchema)) } }, errors: common },
    handler: async (_request, _reply, { credential }) => {
      const p = person(credential);
      const items = await listUserSessions(deps.pool, p.user.id);
      return { data: { items: items.map((s) => ({ id: s.id, createdAt: ts(s.createdAt)!, lastSeenAt: ts(s.lastSeenAt)!, client: s.client, userAgent: s.userAgent, current: s.id === p.sessionId })) } };
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    url: '/v1/me/sessions/:sessionId',
    contract: { ...me, summary: 'End one of my sessions', answers: { 204: { description: 'Ended.' } }, errors: [...common, 'not_found'] },
    handler: async (request, reply, { credential }) => {
      const ended = await endUserSessionById(deps.pool, person(credential).user.id, uuidParam(request, 'sessionId', 'session'));
      if (!ended) throw errors.notFound('The session was not found.');
      return reply.status(204).send();
    },
  });
}
