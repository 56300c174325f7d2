// Single sign-on routes of the interface (docs/roles.md, "Single sign-on"): /ui/api/oidc/start
// sends the browser to the provider, /ui/api/oidc/callback signs the person in. The state, nonce
// and PKCE verifier travel in a short-lived HMAC-sealed cookie (SameSite=Lax: the callback is a
// top-level navigation from the provider's site, which a Strict cookie would not accompany).
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { writeAccountAudit } from '../audit/audit-log.ts';
import { requestClientAddress, type AuthContext } from '../auth/credentials.ts';
import { createUserSession } from '../auth/user-sessions.ts';
import type { OidcConfig } from '../config/config.ts';
import type { Pool } from '../db/pool.ts';
import { AppError } from '../http/errors.ts';
import { defineRoute } from '../http/route-contract.ts';
import { dataOf } from '../http/answers.ts';
import { z } from 'zod';
import { accountForOidc, createOidcClient, type OidcFlowState } from '../teams/oidc.ts';
import { requestIsHttps } from './request-origin.ts';
import { SESSION_COOKIE } from './session.ts';

const FLOW_COOKIE = 'jtrace_oidc';
/** Ten minutes to sign in at the provider. */
const FLOW_SECONDS = 600;
const FLOW_PATH = '/ui/api/oidc';
const REFUSED = '/ui/sign-in?sso=refused';

export function flowKey(adminToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(adminToken, 'utf8'), Buffer.alloc(0), 'jtrace oidc flow v1', 32));
}

export function sealFlow(key: Buffer, flow: OidcFlowState, expiresAtMs: number): string {
  const payload = Buffer.from(JSON.stringify({ ...flow, exp: expiresAtMs }), 'utf8').toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

export function openFlow(key: Buffer, value: string | undefined, nowMs: number): OidcFlowState | null {
  if (value === undefined || value.length > 2048) return null;
  const [payload, mac, extra] = value.split('.');
  if (payload === undefined || mac === undefined || extra !== undefined) return null;
  const expected = createHmac('sha256', key).update(payload).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as OidcFlowState & { exp: number };
    if (typeof parsed.exp !== 'number' || parsed.exp <= nowMs) return null;
    return { state: String(parsed.state), nonce: String(parsed.nonce), verifier: String(parsed.verifier) };
  } catch {
    return null;
  }
}

const CALLBACK_QUERY = {
  code: 'The authorization code.',
  state: 'The state sent with the authorization request.',
  iss: 'The issuer (RFC 9207).',
  session_state: 'Sent by some providers; ignored.',
  scope: 'Sent by some providers; ignored.',
  authuser: 'Sent by some providers; ignored.',
  prompt: 'Sent by some providers; ignored.',
  hd: 'Sent by some providers; ignored.',
  error: 'The provider refused.',
  error_description: 'Why, in the provider’s words; never shown.',
};

export function registerOidcRoutes(api: FastifyInstance, deps: { auth: AuthContext; config: OidcConfig }): void {
  const oidc = createOidcClient(deps.config);
  const key = flowKey(deps.auth.adminToken);
  const cookieOptions = (request: FastifyRequest) => ({ httpOnly: true, sameSite: 'lax' as const, path: FLOW_PATH, secure: requestIsHttps(request, deps.auth.trustedProxyCount) });
  const base = { tag: 'web', credential: null, answers: { 302: { description: 'Location: the provider, the interface, or the sign-in page.' } } } as const;

  defineRoute(api, {
    method: 'GET',
    url: '/oidc/start',
    contract: { ...base, summary: 'Start single sign-on: redirects to the OpenID provider', query: {}, errors: ['invalid_query', 'bad_url', 'internal_error'] },
    handler: async (request, reply) => {
      const { url, flow } = await oidc.start();
      reply.setCookie(FLOW_COOKIE, sealFlow(key, flow, deps.auth.now() + FLOW_SECONDS * 1000), { ...cookieOptions(request), maxAge: FLOW_SECONDS });
      return reply.redirect(url, 302);
    },
  });

  defineRoute(api, {
    method: 'GET',
    url: '/oidc/callback',
    contract: { ...base, summary: 'The OpenID provider’s redirect back: signs the person in', query: CALLBACK_QUERY, errors: ['invalid_query', 'bad_url', 'internal_error'] },
    handler: async (request, reply) => {
      const flow = openFlow(key, request.cookies[FLOW_COOKIE], deps.auth.now());
      // Used once: the flow cookie goes whatever happens next.
      reply.clearCookie(FLOW_COOKIE, cookieOptions(request));
      const clientAddress = requestClientAddress(request, deps.auth);
      try {
        if (flow === null) throw new AppError('unauthorized', 'No sign-in was started from this browser.');
        const raw = request.raw.url ?? '';
        const callback = new URL(deps.config.redirectUrl);
        callback.search = raw.includes('?') ? raw.slice(raw.indexOf('?')) : '';
        const email = await oidc.finish(callback, flow);
        const user = await accountForOidc(deps.auth.db as Pool, deps.config, email, clientAddress, deps.auth.now());
        await signIn(request, reply, user, clientAddress);
        return reply.redirect('/ui/', 302);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        await writeAccountAudit(deps.auth.db, 'session.sign_in_refused', null, { method: 'oidc' }, { kind: 'none', clientAddress });
        return reply.redirect(REFUSED, 302);
      }
    },
  });

  async function signIn(request: FastifyRequest, reply: FastifyReply, user: { id: string; email: string }, clientAddress: string) {
    const { value } = await createUserSession(deps.auth.db, {
      userId: user.id,
      adminToken: deps.auth.adminToken,
      nowMs: deps.auth.now(),
      client: clientAddress,
      userAgent: String(request.headers['user-agent'] ?? ''),
    });
    await writeAccountAudit(deps.auth.db, 'session.signed_in', user.id, { method: 'oidc' }, { kind: 'user', userId: user.id, email: user.email, clientAddress });
    reply.setCookie(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'strict', path: '/ui', maxAge: deps.auth.sessionLimits.maxHours * 3600, secure: requestIsHttps(request, deps.auth.trustedProxyCount) });
  }
}

/** What the sign-in page offers besides the forms: single sign-on when configured. */
export function registerSignInOptions(api: FastifyInstance, singleSignOn: boolean): void {
  defineRoute(api, {
    method: 'GET',
    url: '/sign-in-options',
    contract: {
      summary: 'What the sign-in page offers (single sign-on or not)',
      tag: 'web',
      credential: null,
      query: {},
      answers: { 200: { description: 'singleSignOn: true when OIDC_ISSUER is set.', schema: dataOf(z.strictObject({ singleSignOn: z.boolean() })) } },
      errors: ['invalid_query', 'bad_url', 'internal_error'],
    },
    handler: async () => ({ data: { singleSignOn } }),
  });
}
