import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkAdminSignIn, lockedAddressBeforeBody, requestClientAddress, requestThrottleKey, type AuthContext, type Principal } from '../auth/credentials.ts';
import { endUserSession, isUserSessionValue, readUserSession } from '../auth/user-sessions.ts';
import { errors } from '../http/errors.ts';
import { dataOf } from '../http/answers.ts';
import { sessionSchema } from '../http/answer-schemas/service.ts';
import { defineRoute } from '../http/route-contract.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { requestIsHttps } from './request-origin.ts';
import { SESSION_LIFETIME_SECONDS, issueSession, verifySessionValue, type Session } from './session-token.ts';
import { isSessionRevoked, revokeSession } from './sessions-sql.ts';
import { passwordSignInBodySchema, setPasswordBodySchema, signInBodySchema } from './session-input.ts';
import { VerificationGate, refuseLockedAddress, signInWithPassword, type SignInMetrics } from '../teams/sign-in.ts';
import { setPasswordWithLink } from '../teams/accounts.ts';
import { createUserSession } from '../auth/user-sessions.ts';
import { writeAccountAudit } from '../audit/audit-log.ts';
import type { Pool } from '../db/pool.ts';
import { describePrincipal } from '../teams/describe.ts';

export const SESSION_COOKIE = 'jtrace_session';
/** The cookie is sent to the interface only: pages and `/ui/api`, never `/v1`. */
const COOKIE_OPTIONS = { httpOnly: true, sameSite: 'strict', path: '/ui' } as const;

export interface SessionDeps {
  auth: AuthContext;
  /** deriveSessionKey(admin token). */
  key: Buffer;
}


/** Who the session cookie signs in: the admin token (a signed cookie) or a person (a stored session). */
export async function readPrincipal(request: FastifyRequest, deps: SessionDeps): Promise<{ principal: Principal; expiresAtMs: number } | null> {
  const value = request.cookies[SESSION_COOKIE];
  if (isUserSessionValue(value)) {
    const session = await readUserSession(deps.auth.db, value, {
      adminToken: deps.auth.adminToken,
      nowMs: deps.auth.now(),
      limits: deps.auth.sessionLimits,
    });
    if (session === null) return null;
    return { principal: { kind: 'user', user: session.user, tokenPrefix: null, sessionId: session.publicId }, expiresAtMs: session.expiresAtMs };
  }
  const session = await readSession(request, deps);
  return session === null ? null : { principal: { kind: 'admin-token' }, expiresAtMs: session.expiresAtMs };
}

/** The valid, not signed-out admin-token session a request carries, or null. */
export async function readSession(request: FastifyRequest, deps: SessionDeps): Promise<Session | null> {
  const session = verifySessionValue(deps.key, request.cookies[SESSION_COOKIE], deps.auth.now());
  if (session === null) return null;
  return (await isSessionRevoked(deps.auth.db, session.id)) ? null : session;
}

const COMMON_ERRORS = ['invalid_query', 'bad_url', 'internal_error'] as const;
/**
 * Body limit of sign-in and sign-out, in bytes: a sign-in body holds one token, sign-out none.
 * The server's 1 MB limit let anyone make the server parse 1 MB per request without a credential.
 */
export const SESSION_BODY_LIMIT_BYTES = 4096;

export interface SessionRouteDeps extends SessionDeps {
  metrics: SignInMetrics;
}

/** Sign-in, the current session and sign-out (docs/web-interface.md, "Session"). */
export function registerSessionRoutes(api: FastifyInstance, deps: SessionRouteDeps): void {
  const secure = (request: FastifyRequest) => requestIsHttps(request, deps.auth.trustedProxyCount);
  // Registered once per instance: one bound on the password verifications it runs at once.
  const gate = new VerificationGate();

  defineRoute(api, {
    method: 'POST',
    url: '/session',
    contract: {
      summary: 'Sign in to the web interface with the admin token (sets the session cookie)',
      tag: 'web',
      credential: null,
      query: {},
      body: { schema: signInBodySchema },
      answers: { 204: { description: 'Signed in; Set-Cookie carries the session.' } },
      errors: [...COMMON_ERRORS, 'invalid_request', 'malformed_json', 'payload_too_large', 'unauthorized', 'too_many_attempts', 'forbidden_origin'],
    },
    // Origin (the scope's onRequest hook), then the address lock, then a body of a few KB.
    options: { bodyLimit: SESSION_BODY_LIMIT_BYTES, onRequest: lockedAddressBeforeBody(deps.auth) },
    handler: async (request, reply) => {
      const body = signInBodySchema.safeParse(request.body);
      if (!body.success) throw errors.invalidRequest('token', 'Send {"token": "<admin token>"}.');
      checkAdminSignIn(request, deps.auth, body.data.token);
      const { value } = issueSession(deps.key, deps.auth.now());
      reply.setCookie(SESSION_COOKIE, value, { ...COOKIE_OPTIONS, maxAge: SESSION_LIFETIME_SECONDS, secure: secure(request) });
      return reply.status(204).send();
    },
  });

  // A person's sign-in. The body is a few hundred bytes at most: anything larger is refused unread.
  defineRoute(api, {
    method: 'POST',
    url: '/session/password',
    // Origin (the scope's onRequest hook), then the address lock in PostgreSQL, then a body of a few KB.
    options: {
      bodyLimit: SESSION_BODY_LIMIT_BYTES,
      onRequest: async (request: FastifyRequest) => refuseLockedAddress(deps.auth.db, deps.metrics, requestThrottleKey(request, deps.auth), deps.auth.now()),
    },
    contract: {
      summary: 'Sign in to the web interface with e-mail and password (sets the session cookie)',
      tag: 'web',
      credential: null,
      query: {},
      body: { schema: passwordSignInBodySchema },
      answers: { 204: { description: 'Signed in; Set-Cookie carries the session.' } },
      errors: [...COMMON_ERRORS, 'invalid_request', 'malformed_json', 'payload_too_large', 'unauthorized', 'too_many_attempts', 'forbidden_origin'],
    },
    handler: async (request, reply) => {
      const body = passwordSignInBodySchema.safeParse(request.body);
      if (!body.success) throw errors.invalidRequest('', 'Send {"email": "...", "password": "..."}.');
      const clientAddress = requestClientAddress(request, deps.auth);
      const user = await signInWithPassword(
        { pool: deps.auth.db, keyring: deps.auth.keyring, now: deps.auth.now, metrics: deps.metrics, gate },
        { email: body.data.email, password: body.data.password, address: requestThrottleKey(request, deps.auth), clientAddress },
      );
      const { value } = await createUserSession(deps.auth.db, {
        userId: user.id,
        adminToken: deps.auth.adminToken,
        nowMs: deps.auth.now(),
        client: clientAddress,
        userAgent: String(request.headers['user-agent'] ?? ''),
      });
      await writeAccountAudit(deps.auth.db, 'session.signed_in', user.id, { method: 'password' }, { kind: 'user', userId: user.id, email: user.email, clientAddress });
      reply.setCookie(SESSION_COOKIE, value, { ...COOKIE_OPTIONS, maxAge: deps.auth.sessionLimits.maxHours * 3600, secure: secure(request) });
      return reply.status(204).send();
    },
  });

  // The set-password page of an invitation or reset link; the link works once.
  defineRoute(api, {
    method: 'POST',
    url: '/password-links',
    options: { bodyLimit: SESSION_BODY_LIMIT_BYTES },
    contract: {
      summary: 'Set a password with a one-time invitation or reset link',
      tag: 'web',
      credential: null,
      query: {},
      body: { schema: setPasswordBodySchema },
      answers: { 204: { description: 'The password is set; every session of the person ended.' } },
      errors: [...COMMON_ERRORS, 'invalid_request', 'malformed_json', 'payload_too_large', 'not_found', 'forbidden_origin'],
    },
    handler: async (request, reply) => {
      const body = setPasswordBodySchema.safeParse(request.body);
      if (!body.success) throw errors.invalidRequest('', 'Send {"token": "...", "password": "..."}.');
      await setPasswordWithLink(deps.auth.db as Pool, body.data.token, body.data.password, deps.auth.now());
      return reply.status(204).send();
    },
  });

  defineRoute(api, {
    method: 'GET',
    url: '/session',
    contract: {
      summary: 'The current session of the web interface',
      tag: 'web',
      credential: null,
      query: {},
      answers: { 200: { description: 'The session expiry.', schema: dataOf(sessionSchema) } },
      errors: [...COMMON_ERRORS, 'unauthorized'],
    },
    handler: async (request) => {
      const session = await readPrincipal(request, deps);
      if (session === null) throw errors.unauthorized();
      return { data: { expiresAt: formatTimestamp(session.expiresAtMs), ...(await describePrincipal(deps.auth.db, session.principal)) } };
    },
  });

  defineRoute(api, {
    method: 'DELETE',
    url: '/session',
    contract: {
      summary: 'Sign out of the web interface (clears and revokes the session)',
      tag: 'web',
      credential: null,
      query: {},
      answers: { 204: { description: 'Signed out.' } },
      errors: [...COMMON_ERRORS, 'malformed_json', 'payload_too_large', 'forbidden_origin'],
    },
    options: { bodyLimit: SESSION_BODY_LIMIT_BYTES },
    handler: async (request, reply) => {
      // A copy of the cookie kept elsewhere must stop working too, not only the browser's.
      const value = request.cookies[SESSION_COOKIE];
      if (isUserSessionValue(value)) await endUserSession(deps.auth.db, value);
      const session = await readSession(request, deps);
      if (session !== null) await revokeSession(deps.auth.db, session, deps.auth.now());
      reply.clearCookie(SESSION_COOKIE, { ...COOKIE_OPTIONS, secure: secure(request) });
      return reply.status(204).send();
    },
  });
}
