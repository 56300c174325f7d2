// How long a person's credentials live (docs/roles.md): a reset or disabling ends every personal
// token and session for good, a token makes tokens no longer-lived than itself, and links,
// tokens and sessions each work until their expiry and not at it, on the app's own clock.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { CLI_ACTOR } from '../audit/audit-log.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { keyring } from '../web/test-kit.ts';
import { createPersonalToken } from './tokens.ts';
import { PASSWORD, SAME_ORIGIN, expectCode, makePerson, nextAddress, passwordSignIn, sessionOf, tokenOf } from './test-kit.ts';

const IDLE_MINUTES = 30;
const MAX_HOURS = 2;
const HOUR = 3_600_000;
let db: TestDatabase;
let app: FastifyInstance;
// The app's clock: it only moves forward, each test from where the last one left it.
let nowMs = Date.parse('2026-03-02T10:00:00.000Z');

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring, now: () => nowMs, config: { sessionIdleMinutes: IDLE_MINUTES, sessionMaxHours: MAX_HOURS } })).app;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const admin = bearer(TEST_ADMIN_TOKEN);
// Each call from its own address: refused credentials count in the per-address throttle.
const me = (secret: string) => app.inject({ method: 'GET', url: '/v1/me', headers: bearer(secret), remoteAddress: nextAddress() });
const session = (cookie: string) => app.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie }, remoteAddress: nextAddress() });
const setPassword = (url: string, password = PASSWORD) => app.inject({ method: 'POST', url: '/ui/api/password-links', headers: SAME_ORIGIN, payload: { token: url.split('#token=')[1], password } });
const setState = (userId: string, state: 'active' | 'disabled') => app.inject({ method: 'PATCH', url: `/v1/users/${userId}`, headers: admin, payload: { state } });
const at = (ms: number) => formatTimestamp(ms);
const makeToken = (headers: Record<string, string>, expiresAt?: string | null) =>
  app.inject({ method: 'POST', url: `${headers.cookie ? '/ui/api' : ''}/v1/me/tokens`, headers, payload: { name: 'made', ...(expiresAt !== undefined ? { expiresAt } : {}) } });

async function signedIn() {
  const person = await makePerson(db.pool);
  const cookie = await sessionOf(app, person.email);
  return { ...person, cookie, tokens: [(await tokenOf(app, cookie, 'one')).secret, (await tokenOf(app, cookie, 'two')).secret] };
}

describe('a reset or disabling ends personal tokens and sessions', () => {
  it('a reset revokes every token and session and the old password; the new password revives none', async () => {
    const person = await signedIn();
    for (const token of person.tokens) expect((await me(token)).statusCode).toBe(200);
    const reset = await app.inject({ method: 'POST', url: `/v1/users/${person.id}/password-links`, headers: admin });
    expect(reset.statusCode, reset.body).toBe(201);
    for (const token of person.tokens) expectCode(await me(token), 401, 'unauthorized');
    expectCode(await session(person.cookie), 401, 'unauthorized');
    expectCode(await passwordSignIn(app, person.email, PASSWORD), 401, 'unauthorized');
    const trail = await db.pool.query("SELECT details ->> 'tokenPrefix' AS prefix FROM account_audit_log WHERE subject_user_id = $1 AND action = 'token.revoked'", [person.id]);
    expect(trail.rows.map((r) => r.prefix).sort()).toEqual(person.tokens.map((t) => t.slice(0, 12)).sort());

    // A token made meanwhile (single sign-on still signs in) ends when the new password is set.
    const meanwhile = await createPersonalToken(db.pool, keyring, { userId: person.id, name: 'meanwhile', expiresAt: null, madeWithPrefix: null }, CLI_ACTOR, nowMs);
    expect((await me(meanwhile.secret)).statusCode).toBe(200);
    expect((await setPassword(reset.json().data.url, 'a fresh and unusual passphrase')).statusCode).toBe(204);
    expectCode(await me(meanwhile.secret), 401, 'unauthorized');
    expect((await passwordSignIn(app, person.email, 'a fresh and unusual passphrase')).statusCode).toBe(204);
    for (const token of person.tokens) expectCode(await me(token), 401, 'unauthorized');
    expect((await app.inject({ method: 'GET', url: '/ui/api/v1/me/tokens', headers: { cookie: await signedInCookie(person.email, 'a fresh and unusual passphrase') } })).json().data.items).toEqual([]);
  });

  it('disabling revokes every token and session for good: enabling the account again revives none', async () => {
    const person = await signedIn();
    expect((await setState(person.id, 'disabled')).statusCode).toBe(200);
    expect((await setState(person.id, 'active')).statusCode).toBe(200);
    for (const token of person.tokens) expectCode(await me(token), 401, 'unauthorized');
    expectCode(await session(person.cookie), 401, 'unauthorized');
    // The password is the person's own and survives: they sign in again and make new tokens.
    const cookie = await sessionOf(app, person.email);
    expect((await me((await tokenOf(app, cookie)).secret)).statusCode).toBe(200);
  });
});

async function signedInCookie(email: string, password: string): Promise<string> {
  const response = await passwordSignIn(app, email, password);
  return `jtrace_session=${response.cookies.find((c) => c.name === 'jtrace_session')!.value}`;
}

describe('tokens made with a token', () => {
  it('expire no later than the token that makes them; a token without an expiry and a session make any', async () => {
    const { cookie } = await signedIn();
    const ui = { cookie, ...SAME_ORIGIN };
    const limit = nowMs + HOUR;
    const expiring = (await makeToken(ui, at(limit))).json().data.secret as string;
    for (const expiresAt of [undefined, null, at(limit + 1), at(limit + 24 * HOUR)]) {
      const refused = await makeToken(bearer(expiring), expiresAt);
      expectCode(refused, 400, 'invalid_request');
      expect(refused.json().error.details[0].path).toBe('expiresAt');
    }
    for (const expiresAt of [at(limit), at(limit - 1)]) expect((await makeToken(bearer(expiring), expiresAt)).statusCode).toBe(201);
    const lasting = (await makeToken(ui)).json().data.secret as string;
    expect((await makeToken(bearer(lasting))).statusCode).toBe(201);
    expect((await makeToken(ui, null)).statusCode).toBe(201);
  });
});

describe('expiry on the clock', () => {
  it('a set-password link works until 72 hours after it was made, and not at that instant', async () => {
    const made = nowMs;
    const links: string[] = [];
    for (const email of ['clock-a@example.com', 'clock-b@example.com']) {
      links.push((await app.inject({ method: 'POST', url: '/v1/users', headers: admin, payload: { email } })).json().data.link.url);
    }
    const person = await makePerson(db.pool);
    const reset = (await app.inject({ method: 'POST', url: `/v1/users/${person.id}/password-links`, headers: admin })).json().data;
    expect(Date.parse(reset.expiresAt)).toBe(made + 72 * HOUR);
    nowMs = made + 72 * HOUR - 1;
    expect((await setPassword(links[0]!)).statusCode).toBe(204);
    nowMs = made + 72 * HOUR;
    expectCode(await setPassword(links[1]!), 404, 'not_found');
    expectCode(await setPassword(reset.url), 404, 'not_found');
  });

  it('a personal token works until its expiry, and not at that instant', async () => {
    const { cookie } = await signedIn();
    const expiresAt = nowMs + HOUR;
    const secret = (await makeToken({ cookie, ...SAME_ORIGIN }, at(expiresAt))).json().data.secret as string;
    nowMs = expiresAt - 1;
    expect((await me(secret)).statusCode).toBe(200);
    nowMs = expiresAt;
    expectCode(await me(secret), 401, 'unauthorized');
  });

  it('a session works until the idle expiry it announces, and not at that instant', async () => {
    const { cookie } = await signedIn();
    const signIn = nowMs;
    // Used again within the minute in which last use is not written.
    nowMs = signIn + 30_000;
    const announced = Date.parse((await session(cookie)).json().data.expiresAt);
    expect(announced).toBe(signIn + IDLE_MINUTES * 60_000);
    nowMs = announced - 1;
    const kept = await session(cookie);
    expect(kept.statusCode).toBe(200);
    const next = Date.parse(kept.json().data.expiresAt);
    expect(next).toBe(nowMs + IDLE_MINUTES * 60_000);
    nowMs = next;
    expectCode(await session(cookie), 401, 'unauthorized');
  });

  it('a session ends SESSION_MAX_HOURS after sign-in however busy, and not before', async () => {
    const { cookie } = await signedIn();
    const end = nowMs + MAX_HOURS * HOUR;
    for (nowMs += 20 * 60_000; nowMs < end; nowMs += 20 * 60_000) expect((await session(cookie)).statusCode).toBe(200);
    nowMs = end - 1;
    expect((await session(cookie)).statusCode).toBe(200);
    nowMs = end;
    expectCode(await session(cookie), 401, 'unauthorized');
  });
});
