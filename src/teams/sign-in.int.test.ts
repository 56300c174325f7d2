// Signing in with e-mail and password (docs/roles.md): password rules, one-time links, session
// lifetimes, and the throttle shared by two instances of jtrace on one database.
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, TEST_ADMIN_TOKEN, bearer } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { clock, keyring } from '../web/test-kit.ts';
import { PASSWORD, SAME_ORIGIN, expectCode, makePerson, nextAddress, passwordSignIn, sessionOf } from './test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const setPassword = (target: FastifyInstance, token: string, password: string) =>
  target.inject({ method: 'POST', url: '/ui/api/password-links', headers: SAME_ORIGIN, payload: { token, password } });

async function invite(email: string): Promise<string> {
  const created = await app.inject({ method: 'POST', url: '/v1/users', headers: bearer(TEST_ADMIN_TOKEN), payload: { email } });
  expect(created.statusCode, created.body).toBe(201);
  return (created.json().data.link.url as string).split('#token=')[1]!;
}

describe('passwords', () => {
  it('are 12 to 128 characters, not the e-mail, not a common one; a refused one leaves the link usable', async () => {
    const email = 'rules@example.com';
    const token = await invite(email);
    for (const bad of ['short pass', 'x'.repeat(129), 'RULES@example.com', 'Password1234', 'correcthorsebatterystaple']) {
      expectCode(await setPassword(app, token, bad), 400, 'invalid_request');
    }
    expect((await setPassword(app, token, '12 characters')).statusCode).toBe(204);
    expect((await passwordSignIn(app, email, '12 characters')).statusCode).toBe(204);
    const stored = await db.pool.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE lower(email) = $1', [email]);
    expect(stored.rows[0]!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('a link works once and not after 72 hours; a reset link ends every session', async () => {
    const email = 'links@example.com';
    const token = await invite(email);
    expect((await setPassword(app, token, PASSWORD)).statusCode).toBe(204);
    expectCode(await setPassword(app, token, PASSWORD), 404, 'not_found');
    const cookie = await sessionOf(app, email);
    const userId = (await app.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie } })).json().data.user.id;
    const reset = await app.inject({ method: 'POST', url: `/v1/users/${userId}/password-links`, headers: bearer(TEST_ADMIN_TOKEN) });
    expect(reset.statusCode).toBe(201);
    expectCode(await app.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie } }), 401, 'unauthorized');
    const later = clock(Date.now() + 72 * 3_600_000 + 1000);
    const future = (await buildTestApp(db.pool, { keyring, now: later.now })).app;
    try {
      expectCode(await setPassword(future, (reset.json().data.url as string).split('#token=')[1]!, 'another long passphrase'), 404, 'not_found');
    } finally {
      await future.close();
    }
  });
});

describe('sign-in', () => {
  it('refuses a wrong password and an unknown e-mail alike, at about the same cost', async () => {
    const person = await makePerson(db.pool);
    const timed = async (email: string) => {
      const start = process.hrtime.bigint();
      expectCode(await passwordSignIn(app, email, 'not the password at all'), 401, 'unauthorized');
      return Number(process.hrtime.bigint() - start);
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await timed(person.email));
      unknown.push(await timed(`nobody-${i}@example.com`));
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[2]!;
    // Both verify one argon2id hash; without the stand-in hash an unknown e-mail is ~100 times faster.
    expect(median(unknown) / median(known)).toBeGreaterThan(0.4);
    const refusals = await db.pool.query<{ details: { emailHash: string }; client_address: string }>(
      `SELECT details, client_address FROM account_audit_log WHERE action = 'session.sign_in_refused'`,
    );
    expect(refusals.rows.length).toBeGreaterThanOrEqual(10);
    expect(JSON.stringify(refusals.rows)).not.toContain('not the password');
    expect(JSON.stringify(refusals.rows)).not.toContain(person.email);
  });

  it('never fails on hostile e-mails and passwords: 401 or 400, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), fc.string({ maxLength: 600 }), async (email, password) => {
        const response = await passwordSignIn(app, email, password, nextAddress());
        expect([400, 401]).toContain(response.statusCode);
      }),
      { numRuns: 25 },
    );
    const huge = await app.inject({ method: 'POST', url: '/ui/api/session/password', headers: SAME_ORIGIN, payload: { email: 'a@b.c', password: 'x'.repeat(10_000) } });
    expect(huge.statusCode).toBe(413);
    expectCode(await app.inject({ method: 'POST', url: '/ui/api/session/password', headers: { origin: 'https://evil.example' }, payload: { email: 'a@b.c', password: PASSWORD } }), 403, 'forbidden_origin');
  });

  it('ends a session after SESSION_IDLE_MINUTES idle and SESSION_MAX_HOURS in all', async () => {
    const time = clock(Date.parse('2026-05-01T08:00:00Z'));
    const timed = (await buildTestApp(db.pool, { keyring, now: time.now, config: { sessionIdleMinutes: 30, sessionMaxHours: 2 } })).app;
    try {
      const person = await makePerson(db.pool);
      const cookie = await sessionOf(timed, person.email);
      const session = () => timed.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie } });
      for (let i = 0; i < 4; i++) {
        time.advance(29 * 60_000);
        expect((await session()).statusCode).toBe(200);
      }
      time.advance(7 * 60_000); // 2 h 3 min after sign-in, 7 min after the last request
      expectCode(await session(), 401, 'unauthorized');
      const idle = await sessionOf(timed, person.email);
      time.advance(31 * 60_000);
      expectCode(await timed.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie: idle } }), 401, 'unauthorized');
    } finally {
      await timed.close();
    }
  });
});

describe('two instances on one database', () => {
  it('share the count: refusals across both lock the account on both, whatever the addresses', async () => {
    const other = (await buildTestApp(db.pool, { keyring })).app;
    try {
      const person = await makePerson(db.pool);
      const guessers = Array.from({ length: 10 }, () => nextAddress());
      for (const [i, from] of guessers.entries()) {
        expectCode(await passwordSignIn(i % 2 === 0 ? app : other, person.email, 'wrong but long enough', from), 401, 'unauthorized');
      }
      // Each instance refuses, the right password included, an address that guessed on the other.
      for (const [instance, from] of [[app, guessers[1]!], [other, guessers[0]!]] as const) {
        const locked = await passwordSignIn(instance, person.email, PASSWORD, from);
        expectCode(locked, 429, 'too_many_attempts');
        expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      }
      // An address that has not guessed gets one try while the account is locked, on either instance.
      const newcomer = nextAddress();
      expectCode(await passwordSignIn(other, person.email, 'wrong but long enough', newcomer), 401, 'unauthorized');
      expectCode(await passwordSignIn(app, person.email, PASSWORD, newcomer), 429, 'too_many_attempts');
      // One address guessing at several accounts is locked after five, on both.
      const address = nextAddress();
      for (let i = 0; i < 5; i++) {
        expectCode(await passwordSignIn(i % 2 === 0 ? other : app, `guess-${i}@example.com`, 'wrong but long enough', address), 401, 'unauthorized');
      }
      const fresh = await makePerson(db.pool);
      expectCode(await passwordSignIn(app, fresh.email, PASSWORD, address), 429, 'too_many_attempts');
      expectCode(await passwordSignIn(other, fresh.email, PASSWORD, address), 429, 'too_many_attempts');
      // The lock is checked before the body is read: a body that is not even JSON is not parsed.
      const unread = await app.inject({ method: 'POST', url: '/ui/api/session/password', headers: { ...SAME_ORIGIN, 'content-type': 'application/json' }, payload: '{not json', remoteAddress: address });
      expectCode(unread, 429, 'too_many_attempts');
    } finally {
      await other.close();
    }
  });

  it('a session made on one is valid on the other and ends on both', async () => {
    const other = (await buildTestApp(db.pool, { keyring })).app;
    try {
      const person = await makePerson(db.pool);
      const cookie = await sessionOf(app, person.email);
      expect((await other.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie } })).statusCode).toBe(200);
      expect((await other.inject({ method: 'DELETE', url: '/ui/api/session', headers: { cookie, ...SAME_ORIGIN } })).statusCode).toBe(204);
      for (const instance of [app, other]) {
        expectCode(await instance.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie } }), 401, 'unauthorized');
      }
    } finally {
      await other.close();
    }
  });
});
