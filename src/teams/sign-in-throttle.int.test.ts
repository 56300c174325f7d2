// The sign-in throttle under concurrency (docs/roles.md, "Throttling"): every attempt is counted
// before its password is verified, so bursts sent at once, to one instance or to two on one
// database, get no more verifications than the limits allow. Verifications are counted by the
// server itself (service_password_verifications_total on its metrics listener).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { startMetricsServer, type MetricsServer } from '../metrics/server.ts';
import { keyring } from '../web/test-kit.ts';
import { PASSWORD, expectCode, makePerson, nextAddress, passwordSignIn } from './test-kit.ts';

interface Instance {
  app: FastifyInstance;
  metrics: MetricsServer;
}

let db: TestDatabase;
let first: Instance;
let second: Instance;

async function instance(): Promise<Instance> {
  const built = await buildTestApp(db.pool, { keyring });
  return { app: built.app, metrics: await startMetricsServer(built.deps.metrics as Metrics, '127.0.0.1', 0) };
}

beforeAll(async () => {
  db = await createTestDatabase({ poolMax: 20 });
  first = await instance();
  second = await instance();
});
afterAll(async () => {
  for (const { app, metrics } of [first, second]) {
    await metrics.close();
    await app.close();
  }
  await db.drop();
});

/** The sum of a counter's series on an instance's /metrics. */
async function counter(target: Instance, name: string, labels = '\\w+="\\w+"'): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${target.metrics.port}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'gm'))) total += Number(match[1]);
  return total;
}

/** Password verifications an instance has made so far. */
const verifications = (target: Instance) => counter(target, 'service_password_verifications_total');

async function verificationsOfBoth(): Promise<number> {
  return (await verifications(first)) + (await verifications(second));
}

function statuses(responses: LightMyRequestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.statusCode] = (counts[response.statusCode] ?? 0) + 1;
  return counts;
}

function expectThrottled(responses: LightMyRequestResponse[]): void {
  for (const response of responses.filter((r) => r.statusCode === 429)) {
    expect(response.json().error.code).toBe('too_many_attempts');
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  }
}

const WRONG = 'wrong but long enough';

describe('the limits hold whatever the concurrency', () => {
  it('300 guesses at once from one address at one account: five verified, the rest 429', async () => {
    const person = await makePerson(db.pool);
    const address = nextAddress();
    const before = await verifications(first);
    const responses = await Promise.all(Array.from({ length: 300 }, () => passwordSignIn(first.app, person.email, WRONG, address)));
    expect(await verifications(first)).toBe(before + 5);
    expect(statuses(responses)).toEqual({ 401: 5, 429: 295 });
    expectThrottled(responses);
    // The address stays locked, for the right password too.
    expectCode(await passwordSignIn(first.app, person.email, PASSWORD, address), 429, 'too_many_attempts');
  });

  it('two instances on one database: still five for one address, and the account limit for many', async () => {
    const person = await makePerson(db.pool);
    const address = nextAddress();
    let before = await verificationsOfBoth();
    let responses = await Promise.all(Array.from({ length: 300 }, (_, i) => passwordSignIn(i % 2 ? second.app : first.app, person.email, WRONG, address)));
    expect(await verificationsOfBoth()).toBe(before + 5);
    expect(statuses(responses)).toEqual({ 401: 5, 429: 295 });
    expectThrottled(responses);

    // Twenty addresses, fifteen guesses each, at once, at another account: the account's ten,
    // plus at most one per address once the account is locked (see the next describe).
    const target = await makePerson(db.pool);
    const addresses = Array.from({ length: 20 }, () => nextAddress());
    before = await verificationsOfBoth();
    responses = await Promise.all(
      Array.from({ length: 300 }, (_, i) => passwordSignIn(i % 2 ? second.app : first.app, target.email, WRONG, addresses[i % addresses.length])),
    );
    const verified = (await verificationsOfBoth()) - before;
    expect(verified).toBeLessThanOrEqual(10 + addresses.length);
    expect(statuses(responses)[401]).toBe(verified);
    expectThrottled(responses);
    // Every address that had a guess verified is locked out of the account now, the right password too.
    const guessed = addresses.filter((_, a) => responses.some((r, i) => i % addresses.length === a && r.statusCode === 401));
    expect(guessed.length).toBeGreaterThan(0);
    for (const [i, from] of guessed.entries()) {
      expectCode(await passwordSignIn(i % 2 ? first.app : second.app, target.email, PASSWORD, from), 429, 'too_many_attempts');
    }
  });

  it('a sign-in sent while a burst from many addresses is verified waits behind ten verifications at most, or is refused at once', async () => {
    const bystander = await makePerson(db.pool);
    const start = await verifications(first);
    const burst = Promise.all(Array.from({ length: 200 }, (_, i) => passwordSignIn(first.app, `crowd-${i}-${Date.now()}@example.com`, WRONG)));
    // Sent once the burst's verifications are under way.
    while ((await verifications(first)) === start) await new Promise((resolve) => setTimeout(resolve, 5));
    const sent = await verifications(first);
    const own = await passwordSignIn(first.app, bystander.email, PASSWORD);
    const ahead = (await verifications(first)) - sent - (own.statusCode === 204 ? 1 : 0);
    await burst;
    // Two running and eight waiting; before, it waited behind the whole burst (199 verifications, 9.8 s).
    expect(ahead).toBeLessThanOrEqual(10);
    if (own.statusCode !== 204) {
      expectCode(own, 429, 'too_many_attempts');
      expect(own.headers['retry-after']).toBe('1');
    }
  });

  it('a burst from many addresses gets no more verifications at once than the server runs: the rest is 429 at once', async () => {
    const before = await verifications(first);
    const busyBefore = await counter(first, 'service_password_sign_ins_throttled_total', 'reason="busy"');
    const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => passwordSignIn(first.app, `nobody-${i}-${Date.now()}@example.com`, WRONG)));
    const verified = (await verifications(first)) - before;
    const counts = statuses(responses);
    expect(Object.keys(counts).sort()).toEqual(['401', '429']);
    expect(counts[401]).toBe(verified);
    expect(verified).toBeLessThan(200);
    expect(await counter(first, 'service_password_sign_ins_throttled_total', 'reason="busy"')).toBe(busyBefore + counts[429]!);
    const busy = responses.filter((r) => r.statusCode === 429);
    for (const response of busy) {
      expect(response.json().error.code).toBe('too_many_attempts');
      expect(response.headers['retry-after']).toBe('1');
    }
  });
});

describe('an account locked by failures from elsewhere', () => {
  it('still lets its owner sign in from a clean address; the guessing addresses stay locked', async () => {
    const victim = await makePerson(db.pool);
    const guessers = Array.from({ length: 10 }, () => nextAddress());
    for (const [i, from] of guessers.entries()) {
      expectCode(await passwordSignIn(i % 2 ? second.app : first.app, victim.email, WRONG, from), 401, 'unauthorized');
    }
    // Locked for the addresses that failed, on both instances, even with the right password.
    for (const [i, from] of guessers.entries()) {
      const locked = await passwordSignIn(i % 2 ? first.app : second.app, victim.email, PASSWORD, from);
      expectCode(locked, 429, 'too_many_attempts');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    }
    const own = await passwordSignIn(first.app, victim.email, PASSWORD, nextAddress());
    expect(own.statusCode, own.body).toBe(204);
    // The owner's sign-in does not lift the lock for the guessers.
    expectCode(await passwordSignIn(second.app, victim.email, PASSWORD, guessers[0]), 429, 'too_many_attempts');
  });

  it('forgets an address\'s typing once it signs in: it still gets its try during a later lock', async () => {
    const person = await makePerson(db.pool);
    const own = nextAddress();
    expectCode(await passwordSignIn(first.app, person.email, 'a slip of the fingers', own), 401, 'unauthorized');
    expect((await passwordSignIn(second.app, person.email, PASSWORD, own)).statusCode).toBe(204);
    for (let i = 0; i < 10; i++) expectCode(await passwordSignIn(second.app, person.email, WRONG), 401, 'unauthorized');
    const during = await passwordSignIn(first.app, person.email, PASSWORD, own);
    expect(during.statusCode, during.body).toBe(204);
  });

  it('gives a fresh address one verification during the lock, however many it sends at once', async () => {
    const victim = await makePerson(db.pool);
    for (let i = 0; i < 10; i++) expectCode(await passwordSignIn(first.app, victim.email, WRONG), 401, 'unauthorized');
    const fresh = nextAddress();
    const before = await verificationsOfBoth();
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => passwordSignIn(i % 2 ? second.app : first.app, victim.email, WRONG, fresh)));
    expect(await verificationsOfBoth()).toBe(before + 1);
    expect(statuses(responses)).toEqual({ 401: 1, 429: 49 });
    expectThrottled(responses);
    // Its one guess was wrong: the right password from it now waits for the lock too.
    expectCode(await passwordSignIn(first.app, victim.email, PASSWORD, fresh), 429, 'too_many_attempts');
  });
});
