import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, bearer } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { SESSION_BODY_LIMIT_BYTES } from './session.ts';
import { SESSION_LIFETIME_SECONDS } from './session-token.ts';
import { SAME_ORIGIN, clock, cookieHeader, expectError, signIn, signInRequest, uniqueAddress, webApp } from './test-kit.ts';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const WRONG_TOKEN = 'wrong-admin-token-0123456789abcdefghijklmn';

let db: TestDatabase;
const apps: FastifyInstance[] = [];

async function app(options: Parameters<typeof webApp>[1] = {}) {
  const built = await webApp(db, options);
  apps.push(built);
  return built;
}

function getSession(target: FastifyInstance, cookie?: string) {
  return target.inject({ method: 'GET', url: '/ui/api/session', headers: cookie ? { cookie } : {} });
}

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await db.drop();
});

describe('sign-in', () => {
  it('sets an HttpOnly, SameSite=Strict cookie on /ui for 12 hours, holding no admin token', async () => {
    const target = await app();
    const response = await signInRequest(target, TEST_ADMIN_TOKEN);
    expect(response.statusCode).toBe(204);
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/^jtrace_session=[^;]+; Max-Age=43200; Path=\/ui; HttpOnly; SameSite=Strict$/);
    expect(setCookie).not.toContain('Secure');
    expect(setCookie).not.toContain(TEST_ADMIN_TOKEN);
    expect(JSON.stringify(response.headers)).not.toContain(TEST_ADMIN_TOKEN);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('marks the cookie Secure when the request came over https through a trusted proxy', async () => {
    const target = await app({ config: { trustedProxyCount: 1, publicOrigin: 'https://jtrace.example' } });
    const response = await signInRequest(target, TEST_ADMIN_TOKEN, {
      headers: { host: 'jtrace.example', 'x-forwarded-proto': 'https', origin: 'https://jtrace.example' },
    });
    expect(response.statusCode).toBe(204);
    expect(String(response.headers['set-cookie'])).toMatch(/; Secure(;|$)/);
    // Without a trusted proxy the header is the client's word and is ignored.
    const direct = await signInRequest(await app(), TEST_ADMIN_TOKEN, { headers: { 'x-forwarded-proto': 'https' } });
    expect(String(direct.headers['set-cookie'])).not.toContain('Secure');
  });

  it('refuses a wrong token with 401 and a body without a token with 400', async () => {
    const target = await app();
    expectError(await signInRequest(target, WRONG_TOKEN), 401, 'unauthorized');
    const noToken = await target.inject({ method: 'POST', url: '/ui/api/session', headers: SAME_ORIGIN, payload: { password: 'x' } });
    expectError(noToken, 400, 'invalid_request');
  });

  it('locks the address after five refusals, even for the right token, with Retry-After', async () => {
    const target = await app();
    const remoteAddress = uniqueAddress();
    for (let i = 0; i < 5; i++) expectError(await signInRequest(target, WRONG_TOKEN, { remoteAddress }), 401, 'unauthorized');
    const locked = await signInRequest(target, TEST_ADMIN_TOKEN, { remoteAddress });
    expectError(locked, 429, 'too_many_attempts');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(locked.headers['set-cookie']).toBeUndefined();
    // Another address is not affected.
    expect((await signInRequest(target, TEST_ADMIN_TOKEN)).statusCode).toBe(204);
  });

  it('shares the lock with the admin token in an Authorization header', async () => {
    const target = await app();
    const remoteAddress = uniqueAddress();
    for (let i = 0; i < 3; i++) {
      const response = await target.inject({ method: 'GET', url: '/v1/projects', headers: bearer(WRONG_TOKEN), remoteAddress });
      expectError(response, 401, 'unauthorized');
    }
    for (let i = 0; i < 2; i++) expectError(await signInRequest(target, WRONG_TOKEN, { remoteAddress }), 401, 'unauthorized');
    const api = await target.inject({ method: 'GET', url: '/v1/projects', headers: bearer(TEST_ADMIN_TOKEN), remoteAddress });
    expectError(api, 429, 'too_many_attempts');
  });
});

describe('sign-in and sign-out bodies', () => {
  const post = (target: FastifyInstance, payload: string, remoteAddress = uniqueAddress(), headers: Record<string, string> = SAME_ORIGIN) =>
    target.inject({ method: 'POST', url: '/ui/api/session', headers: { ...headers, 'content-type': 'application/json' }, payload, remoteAddress });

  it(`are capped at ${SESSION_BODY_LIMIT_BYTES} bytes: 413 payload_too_large`, async () => {
    const target = await app();
    const padded = (size: number) => JSON.stringify({ token: TEST_ADMIN_TOKEN, pad: 'x'.repeat(size - TEST_ADMIN_TOKEN.length - 21) });
    expect(Buffer.byteLength(padded(SESSION_BODY_LIMIT_BYTES))).toBe(SESSION_BODY_LIMIT_BYTES);
    expect((await post(target, padded(SESSION_BODY_LIMIT_BYTES))).statusCode).toBe(204);
    expectError(await post(target, padded(SESSION_BODY_LIMIT_BYTES + 1)), 413, 'payload_too_large');
    const cookie = await signIn(target);
    const signOut = await target.inject({
      method: 'DELETE',
      url: '/ui/api/session',
      headers: { cookie, ...SAME_ORIGIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(SESSION_BODY_LIMIT_BYTES) }),
    });
    expectError(signOut, 413, 'payload_too_large');
    expect((await getSession(target, cookie)).statusCode).toBe(200);
  });

  it('are not read from a locked address or another origin: 429 or 403 even when malformed or too large', async () => {
    const target = await app();
    const remoteAddress = uniqueAddress();
    for (let i = 0; i < 5; i++) expectError(await signInRequest(target, WRONG_TOKEN, { remoteAddress }), 401, 'unauthorized');
    expectError(await post(target, '{"token":', remoteAddress), 429, 'too_many_attempts');
    expectError(await post(target, 'x'.repeat(SESSION_BODY_LIMIT_BYTES * 4), remoteAddress), 429, 'too_many_attempts');
    expectError(await post(target, '{"token":', uniqueAddress(), { origin: 'http://evil.example' }), 403, 'forbidden_origin');
  });
});

describe('the session cookie', () => {
  it('answers its expiry, and is refused once 12 hours have passed', async () => {
    const time = clock(T0);
    const target = await app({ now: time.now });
    const cookie = await signIn(target);
    const current = await getSession(target, cookie);
    expect(current.statusCode).toBe(200);
    expect(current.json()).toEqual({
      data: { expiresAt: new Date(T0 + SESSION_LIFETIME_SECONDS * 1000).toISOString(), signedInAs: 'admin-token', user: null, actions: ['instance.read', 'projects.create', 'users.manage'], projects: expect.any(Array) },
    });
    time.advance(SESSION_LIFETIME_SECONDS * 1000 - 1000);
    expect((await getSession(target, cookie)).statusCode).toBe(200);
    time.advance(1000);
    expectError(await getSession(target, cookie), 401, 'unauthorized');
    expectError(await target.inject({ method: 'GET', url: '/ui/api/v1/projects', headers: { cookie } }), 401, 'unauthorized');
  });

  it('is refused when missing or tampered with', async () => {
    const target = await app();
    const cookie = await signIn(target);
    expectError(await getSession(target), 401, 'unauthorized');
    const [id, expiry, mac] = cookie.slice('jtrace_session='.length).split('.') as [string, string, string];
    const tampered = [
      `jtrace_session=${id}.${Number(expiry) + 3600}.${mac}`,
      `jtrace_session=${id}.${expiry}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `jtrace_session=${id}.${expiry}`,
      'jtrace_session=',
      `other=${id}.${expiry}.${mac}`,
    ];
    for (const bad of tampered) expectError(await getSession(target, bad), 401, 'unauthorized');
  });

  it('is refused by a server whose ADMIN_TOKEN changed', async () => {
    const cookie = await signIn(await app());
    const rotated = await app({ adminToken: `${TEST_ADMIN_TOKEN}-rotated` });
    expectError(await getSession(rotated, cookie), 401, 'unauthorized');
    expectError(await rotated.inject({ method: 'GET', url: '/ui/api/v1/projects', headers: { cookie } }), 401, 'unauthorized');
    // The same token on another server instance keeps the session.
    expect((await getSession(await app(), cookie)).statusCode).toBe(200);
  });

  it('is cleared and refused after sign-out, even when a copy is replayed', async () => {
    const target = await app();
    const cookie = await signIn(target);
    const out = await target.inject({ method: 'DELETE', url: '/ui/api/session', headers: { cookie, ...SAME_ORIGIN } });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^jtrace_session=; Max-Age=0; Path=\/ui; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/);
    expectError(await getSession(target, cookie), 401, 'unauthorized');
    expectError(await target.inject({ method: 'GET', url: '/ui/api/v1/projects', headers: { cookie } }), 401, 'unauthorized');
    // Signing out twice, or without a session, is still 204.
    expect((await target.inject({ method: 'DELETE', url: '/ui/api/session', headers: { cookie, ...SAME_ORIGIN } })).statusCode).toBe(204);
    expect((await target.inject({ method: 'DELETE', url: '/ui/api/session', headers: SAME_ORIGIN })).statusCode).toBe(204);
    // A new sign-in works.
    expect((await getSession(target, await signIn(target))).statusCode).toBe(200);
  });

  it('is not sent to, nor accepted by, the /v1 routes', async () => {
    const target = await app();
    const cookie = await signIn(target);
    expectError(await target.inject({ method: 'GET', url: '/v1/projects', headers: { cookie } }), 401, 'unauthorized');
  });
});

describe('Origin check', () => {
  it('refuses state-changing requests without the server origin with 403 forbidden_origin', async () => {
    const target = await app();
    const cookie = await signIn(target);
    const cases = [
      { method: 'POST' as const, url: '/ui/api/session', payload: { token: TEST_ADMIN_TOKEN } },
      { method: 'DELETE' as const, url: '/ui/api/session' },
      { method: 'DELETE' as const, url: '/ui/api/v1/journeys/j-1' },
      { method: 'POST' as const, url: '/ui/api/v1/replays', payload: {} },
      { method: 'POST' as const, url: '/ui/api/v1/replay-destinations', payload: {} },
    ];
    for (const origin of [undefined, 'http://evil.example', 'http://localhost:8080', 'https://localhost', 'null', 'http://localhost/']) {
      for (const c of cases) {
        const headers: Record<string, string> = { cookie, ...(origin === undefined ? {} : { origin }) };
        expectError(await target.inject({ ...c, headers }), 403, 'forbidden_origin');
      }
    }
    // The session survived every refused sign-out.
    expect((await getSession(target, cookie)).statusCode).toBe(200);
    // Reads need no Origin.
    expect((await target.inject({ method: 'GET', url: '/ui/api/v1/projects', headers: { cookie } })).statusCode).toBe(200);
  });

  it('accepts the origin the Host header names, in any case and with an explicit port', async () => {
    const target = await app();
    const response = await target.inject({
      method: 'POST',
      url: '/ui/api/session',
      headers: { host: 'LocalHost:8443', origin: 'http://localhost:8443' },
      payload: { token: TEST_ADMIN_TOKEN },
      remoteAddress: uniqueAddress(),
    });
    expect(response.statusCode).toBe(204);
    expect(cookieHeader(response)).toMatch(/^jtrace_session=/);
  });
});

describe('Origin check and PUBLIC_URL', () => {
  const DEPLOYED = { databaseUrl: 'postgres://jtrace@db.internal/jtrace' };
  const PUBLIC = 'https://jtrace.example.com';
  const signInAt = (target: FastifyInstance, host: string, origin: string) =>
    target.inject({ method: 'POST', url: '/ui/api/session', headers: { host, origin }, payload: { token: TEST_ADMIN_TOKEN }, remoteAddress: uniqueAddress() });

  it('without PUBLIC_URL, refuses a host name a rebinding page can name, and accepts IP addresses and localhost', async () => {
    for (const target of [await app(), await app({ config: DEPLOYED })]) {
      // A page of rebind.example whose name now resolves to jtrace: Host and Origin agree.
      expectError(await signInAt(target, 'rebind.example:8080', 'http://rebind.example:8080'), 403, 'forbidden_origin');
      expectError(await signInAt(target, 'jtrace.localhost.example', 'http://jtrace.localhost.example'), 403, 'forbidden_origin');
      for (const host of ['127.0.0.1:8080', '10.1.2.3', '[::1]:8080', 'localhost:8080']) {
        expect((await signInAt(target, host, `http://${host}`)).statusCode, host).toBe(204);
      }
    }
  });

  it('with PUBLIC_URL, accepts its origin whatever the Host, and no other', async () => {
    const target = await app({ config: { ...DEPLOYED, publicOrigin: PUBLIC } });
    expect((await signInAt(target, 'jtrace.internal:8080', PUBLIC)).statusCode).toBe(204);
    expect((await signInAt(target, 'jtrace.example.com', PUBLIC)).statusCode).toBe(204);
    expectError(await signInAt(target, 'rebind.example', 'http://rebind.example'), 403, 'forbidden_origin');
    expectError(await signInAt(target, 'jtrace.example.com', 'http://jtrace.example.com'), 403, 'forbidden_origin');
    expectError(await signInAt(target, '127.0.0.1:8080', 'http://127.0.0.1:8080'), 403, 'forbidden_origin');
    expectError(await signInAt(target, 'localhost', 'http://localhost'), 403, 'forbidden_origin');
  });

  it('with PUBLIC_URL in embedded mode, also accepts the loopback origin the request was made to', async () => {
    const target = await app({ config: { publicOrigin: PUBLIC } });
    expect((await signInAt(target, 'jtrace.internal', PUBLIC)).statusCode).toBe(204);
    for (const host of ['127.0.0.1:8080', 'localhost:8080', '[::1]']) {
      expect((await signInAt(target, host, `http://${host}`)).statusCode, host).toBe(204);
    }
    expectError(await signInAt(target, '10.1.2.3', 'http://10.1.2.3'), 403, 'forbidden_origin');
    expectError(await signInAt(target, 'rebind.example', 'http://rebind.example'), 403, 'forbidden_origin');
    expectError(await signInAt(target, '127.0.0.1:8080', 'http://localhost:8080'), 403, 'forbidden_origin');
  });

  it('never accepts a Host-named origin under a DNS name that is not PUBLIC_URL (fast-check)', async () => {
    const deployed = await app({ config: DEPLOYED });
    const withPublic = await app({ config: { ...DEPLOYED, publicOrigin: PUBLIC } });
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
    const hostName = fc
      .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('com', 'example', 'net', 'internal'), fc.option(fc.integer({ min: 1, max: 65535 })))
      .map(([labels, tld, port]) => `${labels.join('.')}.${tld}${port === null ? '' : `:${port}`}`);
    await fc.assert(
      fc.asyncProperty(hostName, fc.constantFrom('http', 'https'), async (host, scheme) => {
        const origin = new URL(`${scheme}://${host}`).origin;
        fc.pre(origin !== PUBLIC);
        for (const target of [deployed, withPublic]) {
          const response = await signInAt(target, host, origin);
          expect(response.statusCode).toBe(403);
        }
      }),
      { numRuns: 60 },
    );
  });
});
