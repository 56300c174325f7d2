import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { checkAdminSignIn, type AuthContext } from '../auth/credentials.ts';
import { errors } from '../http/errors.ts';
import { parseQuery } from '../http/query.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { requestIsHttps } from './request-origin.ts';
import { SESSION_LIFETIME_SECONDS, issueSession, verifySessionValue, type Session } from './session-token.ts';
import { isSessionRevoked, revokeSession } from './sessions-sql.ts';

export const SESSION_COOKIE = 'jtrace_session';
/** The cookie is sent to the interface only: pages and `/ui/api`, never `/v1`. */
const COOKIE_PATH = '/ui';

export interface SessionDeps {
  auth: AuthContext;
  /** deriveSessionKey(admin token). */
  key: Buffer;
}

const signInBody = z.object({ token: z.string() });

/** The valid, not signed-out session a request carries, or null. */
export async function readSession(request: FastifyRequest, deps: SessionDeps): Promise<Session | null> {
  const session = verifySessionValue(deps.key, request.cookies[SESSION_COOKIE], deps.auth.now());
  if (session === null) return null;
  return (await isSessionRevoked(deps.auth.db, session.id)) ? null : session;
}

/** Sign-in, the current session and sign-out (docs/web-interface.md, "Session"). */
export function registerSessionRoutes(api: FastifyInstance, deps: SessionDeps): void {
  api.post('/session', async (request, reply) => {
    parseQuery(request.raw.url ?? '', []);
    const body = signInBody.safeParse(request.body);
    if (!body.success) throw errors.invalidRequest('token', 'Send {"token": "<admin token>"}.');
    checkAdminSignIn(request, deps.auth, body.data.token);
    const { value } = issueSession(deps.key, deps.auth.now());
    reply.setCookie(SESSION_COOKIE, value, {
      httpOnly: true,
      sameSite: 'strict',
      path: COOKIE_PATH,
      maxAge: SESSION_LIFETIME_SECONDS,
      secure: requestIsHttps(request, deps.auth.trustedProxyCount),
    });
    return reply.status(204).send();
  });

  api.get('/session', async (request) => {
    parseQuery(request.raw.url ?? '', []);
    const session = await readSession(request, deps);
    if (session === null) throw errors.unauthorized();
    return { data: { expiresAt: formatTimestamp(session.expiresAtMs) } };
  });

  api.delete('/session', async (request, reply) => {
    parseQuery(request.raw.url ?? '', []);
    const session = await readSession(request, deps);
    // A copy of the cookie kept elsewhere must stop working too, not only the browser's.
    if (session !== null) await revokeSession(deps.auth.db, session, deps.auth.now());
    reply.clearCookie(SESSION_COOKIE, {
      httpOnly: true,
      sameSite: 'strict',
      path: COOKIE_PATH,
      secure: requestIsHttps(request, deps.auth.trustedProxyCount),
    });
    return reply.status(204).send();
  });
}
