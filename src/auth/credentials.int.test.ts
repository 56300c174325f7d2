import type { FastifyInstance, FastifyRequest, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../audit/audit-log.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { FailedCredentialThrottle } from '../http/throttle.ts';
import { AppError } from '../http/errors.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import {
  TEST_ADMIN_TOKEN,
  TEST_ENCRYPTION_KEY,
  bearer,
  buildTestApp,
  seedProject,
  type SeededProject,
  type TestAppOptions,
} from '../../test/helpers/app.ts';
import { revokeApiKeyByPrefix } from './api-key-service.ts';
import { requireApiKey, type AuthContext } from './credentials.ts';

const T0 = 1_700_000_000_000;
const WRONG_TOKEN = 'wrong-admin-token-0123456789abcdefghijklmn';

let db: TestDatabase;
let app: FastifyInstance;
let seeded: SeededProject;
const apps: FastifyInstance[] = [];

/** An app with its own throttle (each buildApp makes one) and, optionally, its own clock. */
async function freshApp(options: TestAppOptions = {}): Promise<FastifyInstance> {
  const built = await buildTestApp(db.pool, options);
  apps.push(built.app);
  return built.app;
}

function clock(start = T0) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

let addressCounter = 0;
/** A documentation-range address no other test uses, so throttle counts never mix. */
function uniqueAddress(): string {
  addressCounter += 1;
  return `198.18.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

function projects(target: FastifyInstance, headers: Record<string, string>, remoteAddress = uniqueAddress()) {
  return target.inject({ method: 'GET', url: '/v1/projects', headers, remoteAddress });
}

function expectError(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode).toBe(status);
  const body = response.json();
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.requestId).toBe(response.headers['x-request-id']);
}

/** Five refused admin-token guesses, one after another, from one address. */
async function lockAddress(target: FastifyInstance, remoteAddress: string, extra: Record<string, string> = {}) {
  for (let i = 0; i < 5; i++) {
    expectError(await projects(target, { ...bearer(WRONG_TOKEN), ...extra }, remoteAddress), 401, 'unauthorized');
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  const built = await buildTestApp(db.pool);
  app = built.app;
  apps.push(app);
  seeded = await seedProject(db.pool, built.deps.keyring, 'acme');
});
afterAll(async () => {
  for (const a of apps) await a.close();
  await db.drop();
});

describe('Bearer parsing on GET /v1/projects (admin token only)', () => {
  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts the scheme written %s', async (scheme) => {
    const response = await projects(app, { authorization: `${scheme} ${TEST_ADMIN_TOKEN}` });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.items).toHaveLength(1);
  });

  it.each([
    ['two spaces', `Bearer  ${TEST_ADMIN_TOKEN}`],
    ['a trailing space', `Bearer ${TEST_ADMIN_TOKEN} `],
    ['a tab instead of the space', `Bearer\t${TEST_ADMIN_TOKEN}`],
    ['no scheme', TEST_ADMIN_TOKEN],
    ['the Basic scheme', `Basic ${TEST_ADMIN_TOKEN}`],
    ['the Token scheme', `Token ${TEST_ADMIN_TOKEN}`],
    ['a scheme glued to the token', `Bearer${TEST_ADMIN_TOKEN}`],
    ['the scheme alone', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['something after the token', `Bearer ${TEST_ADMIN_TOKEN} extra`],
    ['a leading space', ` Bearer ${TEST_ADMIN_TOKEN}`],
    ['an empty header', ''],
    ['a wrong token', `Bearer ${WRONG_TOKEN}`],
    ['the token with a suffix', `Bearer ${TEST_ADMIN_TOKEN}x`],
    ['a prefix of the token', `Bearer ${TEST_ADMIN_TOKEN.slice(0, -1)}`],
  ])('answers 401 unauthorized for %s', async (_label, authorization) => {
    expectError(await projects(app, { authorization }), 401, 'unauthorized');
  });

  it('answers 401 unauthorized with no Authorization header', async () => {
    expectError(await projects(app, {}), 401, 'unauthorized');
  });

  it('answers 401 unauthorized for an API key on an admin-only route', async () => {
    const response = await projects(app, bearer(seeded.apiKey));
    expectError(response, 401, 'unauthorized');
    expect(response.body).not.toContain(seeded.apiKey);
  });

  it('does not list anything in a refusal', async () => {
    const response = await projects(app, bearer(WRONG_TOKEN));
    expect(response.body).not.toContain('acme');
    expect(response.json().data).toBeUndefined();
  });
});

describe('API key revocation', () => {
  it('marks the row revoked and writes api_key.created and api_key.revoked audit rows with the prefix only', async () => {
    const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
    const project = await seedProject(db.pool, keyring, 'revoked-project', 'staging');
    expect(project.apiKey.startsWith(project.keyPrefix)).toBe(true);

    expect(await revokeApiKeyByPrefix(db.pool, project.keyPrefix)).toBe(true);
    // A second revocation finds no active key with that prefix.
    expect(await revokeApiKeyByPrefix(db.pool, project.keyPrefix)).toBe(false);
    expect(await revokeApiKeyByPrefix(db.pool, 'jtk_nothere')).toBe(false);

    const rows = await db.pool.query<{ revoked_at: Date | null; hash: string }>(
      'SELECT revoked_at, hash FROM api_keys WHERE prefix = $1',
      [project.keyPrefix],
    );
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]!.revoked_at).toBeInstanceOf(Date);
    // The secret itself is never stored.
    expect(rows.rows[0]!.hash).not.toContain(project.apiKey);
    const dump = await db.pool.query<{ row: string }>('SELECT row_to_json(k)::text AS row FROM api_keys k');
    for (const { row } of dump.rows) expect(row).not.toContain(project.apiKey);

    const audit = await listAudit(db.pool, project.projectId);
    expect(audit.map((row) => row.action)).toEqual(['api_key.created', 'api_key.revoked']);
    for (const row of audit) {
      expect(row.details).toEqual({ keyPrefix: project.keyPrefix });
      expect(JSON.stringify(row.details)).not.toContain(project.apiKey);
      // Not even the random part past the prefix.
      expect(JSON.stringify(row.details)).not.toContain(project.apiKey.slice(project.keyPrefix.length));
    }
    // The failed second revocation wrote nothing.
    expect(audit).toHaveLength(2);
  });

  it('a revoked key stays refused on the admin-only route', async () => {
    const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
    const project = await seedProject(db.pool, keyring, 'revoked-two');
    await revokeApiKeyByPrefix(db.pool, project.keyPrefix);
    expectError(await projects(app, bearer(project.apiKey)), 401, 'unauthorized');
  });

  it('answers 401 unauthorized for a revoked API key on the ingestion and read routes', async () => {
    const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
    const project = await seedProject(db.pool, keyring, 'revoked-three');
    const read = () => app.inject({ method: 'GET', url: '/v1/journeys/none', headers: bearer(project.apiKey), remoteAddress: uniqueAddress() });
    const ingest = () =>
      app.inject({ method: 'POST', url: '/v1/events/batch', headers: bearer(project.apiKey), payload: { events: [] } });
    expect((await read()).statusCode).toBe(404);
    expect((await ingest()).statusCode).toBe(202);
    await revokeApiKeyByPrefix(db.pool, project.keyPrefix);
    expectError(await read(), 401, 'unauthorized');
    expectError(await ingest(), 401, 'unauthorized');
  });
});

describe('requireApiKey (called directly until an API-key route is registered)', () => {
  function context(keyring = createKeyring({ current: TEST_ENCRYPTION_KEY })): AuthContext {
    return {
      db: db.pool,
      keyring,
      adminToken: TEST_ADMIN_TOKEN,
      throttle: new FailedCredentialThrottle(),
      trustedProxyCount: 0,
      now: Date.now,
      sessionLimits: { idleMinutes: 720, maxHours: 168 },
    };
  }
  function request(authorization: string | undefined): FastifyRequest {
    return { headers: authorization === undefined ? {} : { authorization } } as unknown as FastifyRequest;
  }
  async function refusal(promise: Promise<unknown>): Promise<AppError> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }

  it('accepts a live key and names its project and environment', async () => {
    const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
    const project = await seedProject(db.pool, keyring, 'direct-live', 'qa');
    const principal = await requireApiKey(request(`bearer ${project.apiKey}`), context(keyring));
    expect(principal).toMatchObject({
      kind: 'api-key',
      prefix: project.keyPrefix,
      projectId: project.projectId,
      environmentName: 'qa',
    });
  });

  it('refuses a revoked key with 401 unauthorized', async () => {
    const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
    const project = await seedProject(db.pool, keyring, 'direct-revoked');
    expect(await revokeApiKeyByPrefix(db.pool, project.keyPrefix)).toBe(true);
    const error = await refusal(requireApiKey(request(`Bearer ${project.apiKey}`), context(keyring)));
    expect(error.status).toBe(401);
    expect(error.code).toBe('unauthorized');
  });

  it('refuses a key whose hash was written under an encryption key no longer configured', async () => {
    const keyringA = createKeyring({ current: 'encryption-key-A-0123456789abcdefghijklmn' });
    const keyringB = createKeyring({ current: 'encryption-key-B-0123456789abcdefghijklmn' });
    const project = await seedProject(db.pool, keyringA, 'direct-rotated');
    // Sanity: under keyring A it works.
    await expect(requireApiKey(request(`Bearer ${project.apiKey}`), context(keyringA))).resolves.toMatchObject({
      prefix: project.keyPrefix,
    });
    const error = await refusal(requireApiKey(request(`Bearer ${project.apiKey}`), context(keyringB)));
    expect(error.status).toBe(401);
    expect(error.code).toBe('unauthorized');
  });

  it('accepts a key written under the previous key and moves it to the current one', async () => {
    const keyA = 'encryption-key-A2-0123456789abcdefghijklm';
    const keyB = 'encryption-key-B2-0123456789abcdefghijklm';
    const keyringA = createKeyring({ current: keyA });
    const rotated = createKeyring({ current: keyB, previous: keyA });
    const project = await seedProject(db.pool, keyringA, 'direct-rotating');
    await requireApiKey(request(`Bearer ${project.apiKey}`), context(rotated));
    const row = await db.pool.query<{ hash_key_id: string }>('SELECT hash_key_id FROM api_keys WHERE prefix = $1', [
      project.keyPrefix,
    ]);
    expect(row.rows[0]!.hash_key_id).toBe(rotated.currentKeyId);
  });

  it('refuses the admin token, an unknown key and a malformed header', async () => {
    for (const header of [`Bearer ${TEST_ADMIN_TOKEN}`, `Bearer jtk_${'A'.repeat(32)}`, 'Bearer', undefined]) {
      const error = await refusal(requireApiKey(request(header), context()));
      expect(error.status).toBe(401);
      expect(error.code).toBe('unauthorized');
    }
  });
});

describe('credential throttling', () => {
  it('sent one after another, five refusals then the sixth request (even with the valid admin token) is 429', async () => {
    const address = uniqueAddress();
    await lockAddress(app, address);
    const response = await projects(app, bearer(TEST_ADMIN_TOKEN), address);
    expectError(response, 429, 'too_many_attempts');
    const retryAfter = response.headers['retry-after'];
    expect(String(retryAfter)).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(300);
    // Still locked for a wrong token, a malformed header and an API key on this route.
    expectError(await projects(app, bearer(WRONG_TOKEN), address), 429, 'too_many_attempts');
    expectError(await projects(app, { authorization: 'Basic abc' }, address), 429, 'too_many_attempts');
    expectError(await projects(app, bearer(seeded.apiKey), address), 429, 'too_many_attempts');
    // Another address is unaffected.
    expect((await projects(app, bearer(TEST_ADMIN_TOKEN))).statusCode).toBe(200);
  });

  it('four refusals do not lock', async () => {
    const address = uniqueAddress();
    for (let i = 0; i < 4; i++) {
      expectError(await projects(app, bearer(WRONG_TOKEN), address), 401, 'unauthorized');
    }
    expect((await projects(app, bearer(TEST_ADMIN_TOKEN), address)).statusCode).toBe(200);
  });

  it('counts an API key presented to an admin-only route as a refusal', async () => {
    const address = uniqueAddress();
    for (let i = 0; i < 5; i++) {
      expectError(await projects(app, bearer(seeded.apiKey), address), 401, 'unauthorized');
    }
    expectError(await projects(app, bearer(TEST_ADMIN_TOKEN), address), 429, 'too_many_attempts');
  });

  it('counts malformed Authorization headers as refusals', async () => {
    const address = uniqueAddress();
    for (const authorization of ['Basic x', 'Bearer  x', 'token', 'Bearer x y', 'Bearer']) {
      expectError(await projects(app, { authorization }, address), 401, 'unauthorized');
    }
    expectError(await projects(app, bearer(TEST_ADMIN_TOKEN), address), 429, 'too_many_attempts');
  });

  it('does not count requests without an Authorization header', async () => {
    const address = uniqueAddress();
    for (let i = 0; i < 10; i++) {
      expectError(await projects(app, {}, address), 401, 'unauthorized');
    }
    expect((await projects(app, bearer(TEST_ADMIN_TOKEN), address)).statusCode).toBe(200);
    // Four real refusals around more header-less requests still do not lock.
    for (let i = 0; i < 4; i++) {
      expectError(await projects(app, bearer(WRONG_TOKEN), address), 401, 'unauthorized');
      expectError(await projects(app, {}, address), 401, 'unauthorized');
    }
    expect((await projects(app, bearer(TEST_ADMIN_TOKEN), address)).statusCode).toBe(200);
  });

  it('a request without an Authorization header on a locked address is 401, not 429', async () => {
    const address = uniqueAddress();
    await lockAddress(app, address);
    expectError(await projects(app, {}, address), 401, 'unauthorized');
  });

  it('a successful admin request does not reset the count', async () => {
    const address = uniqueAddress();
    for (let i = 0; i < 4; i++) await projects(app, bearer(WRONG_TOKEN), address);
    expect((await projects(app, bearer(TEST_ADMIN_TOKEN), address)).statusCode).toBe(200);
    expectError(await projects(app, bearer(WRONG_TOKEN), address), 401, 'unauthorized');
    expectError(await projects(app, bearer(TEST_ADMIN_TOKEN), address), 429, 'too_many_attempts');
  });

  it('locks for five minutes, with Retry-After counting down, then lets requests through again', async () => {
    const time = clock();
    const local = await freshApp({ now: time.now });
    const address = uniqueAddress();
    await lockAddress(local, address);

    let response = await projects(local, bearer(TEST_ADMIN_TOKEN), address);
    expectError(response, 429, 'too_many_attempts');
    expect(response.headers['retry-after']).toBe('300');

    time.advance(60_000);
    response = await projects(local, bearer(TEST_ADMIN_TOKEN), address);
    expectError(response, 429, 'too_many_attempts');
    expect(response.headers['retry-after']).toBe('240');

    time.advance(239_000);
    response = await projects(local, bearer(TEST_ADMIN_TOKEN), address);
    expectError(response, 429, 'too_many_attempts');
    expect(response.headers['retry-after']).toBe('1');

    time.advance(1_000);
    expect((await projects(local, bearer(TEST_ADMIN_TOKEN), address)).statusCode).toBe(200);
    // The count starts afresh: one refusal after the lock does not lock again.
    expectError(await projects(local, bearer(WRONG_TOKEN), address), 401, 'unauthorized');
    expect((await projects(local, bearer(TEST_ADMIN_TOKEN), address)).statusCode).toBe(200);
  });

  it('refusals recorded while locked do not extend the lock', async () => {
    const time = clock();
    const local = await freshApp({ now: time.now });
    const address = uniqueAddress();
    await lockAddress(local, address);
    time.advance(200_000);
    expectError(await projects(local, bearer(WRONG_TOKEN), address), 429, 'too_many_attempts');
    time.advance(100_000);
    expect((await projects(local, bearer(TEST_ADMIN_TOKEN), address)).statusCode).toBe(200);
  });

  it('failures more than a minute apart do not lock', async () => {
    const time = clock();
    const local = await freshApp({ now: time.now });
    const address = uniqueAddress();
    for (let i = 0; i < 8; i++) {
      expectError(await projects(local, bearer(WRONG_TOKEN), address), 401, 'unauthorized');
      time.advance(61_000);
    }
    expect((await projects(local, bearer(TEST_ADMIN_TOKEN), address)).statusCode).toBe(200);
  });

  it('five failures spread just over a minute do not lock; five within a minute do', async () => {
    const time = clock();
    const local = await freshApp({ now: time.now });
    const spread = uniqueAddress();
    // 0, 15, 30, 45, 60 s: the first has left the one-minute window when the fifth arrives.
    for (let i = 0; i < 5; i++) {
      expectError(await projects(local, bearer(WRONG_TOKEN), spread), 401, 'unauthorized');
      if (i < 4) time.advance(15_000);
    }
    expect((await projects(local, bearer(TEST_ADMIN_TOKEN), spread)).statusCode).toBe(200);

    const close = uniqueAddress();
    for (let i = 0; i < 5; i++) {
      expectError(await projects(local, bearer(WRONG_TOKEN), close), 401, 'unauthorized');
      if (i < 4) time.advance(14_000);
    }
    expectError(await projects(local, bearer(TEST_ADMIN_TOKEN), close), 429, 'too_many_attempts');
  });

  it('IPv6 addresses in the same /64 share one count', async () => {
    const local = await freshApp();
    const addresses = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:aaaa::3', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002::5'];
    for (const address of addresses) {
      expectError(await projects(local, bearer(WRONG_TOKEN), address), 401, 'unauthorized');
    }
    expectError(await projects(local, bearer(TEST_ADMIN_TOKEN), '2001:db8:1:2::99'), 429, 'too_many_attempts');
    // Another /64 of the same /48 is not locked.
    expect((await projects(local, bearer(TEST_ADMIN_TOKEN), '2001:db8:1:3::1')).statusCode).toBe(200);
    expect((await projects(local, bearer(TEST_ADMIN_TOKEN), '2001:db8:1:2:1::')).statusCode).toBe(429);
  });

  it('IPv6 addresses in different /64s do not share a count', async () => {
    const local = await freshApp();
    for (let i = 0; i < 5; i++) {
      expectError(await projects(local, bearer(WRONG_TOKEN), `2001:db8:9:${i}::1`), 401, 'unauthorized');
    }
    for (let i = 0; i < 5; i++) {
      expect((await projects(local, bearer(TEST_ADMIN_TOKEN), `2001:db8:9:${i}::1`)).statusCode).toBe(200);
    }
  });

  it('an IPv4-mapped IPv6 address counts as the IPv4 address', async () => {
    const local = await freshApp();
    for (let i = 0; i < 3; i++) await projects(local, bearer(WRONG_TOKEN), '203.0.113.50');
    for (let i = 0; i < 2; i++) await projects(local, bearer(WRONG_TOKEN), '::ffff:203.0.113.50');
    expectError(await projects(local, bearer(TEST_ADMIN_TOKEN), '203.0.113.50'), 429, 'too_many_attempts');
    expectError(await projects(local, bearer(TEST_ADMIN_TOKEN), '::ffff:203.0.113.50'), 429, 'too_many_attempts');
    expect((await projects(local, bearer(TEST_ADMIN_TOKEN), '203.0.113.51')).statusCode).toBe(200);
  });

  it('ignores X-Forwarded-For with TRUSTED_PROXY_COUNT 0', async () => {
    const local = await freshApp({ config: { trustedProxyCount: 0 } });
    const socket = '192.0.2.10';
    // Varying the header does not dodge the count of the socket address.
    for (let i = 0; i < 5; i++) {
      expectError(
        await projects(local, { ...bearer(WRONG_TOKEN), 'x-forwarded-for': `198.51.100.${i + 1}` }, socket),
        401,
        'unauthorized',
      );
    }
    expectError(
      await projects(local, { ...bearer(TEST_ADMIN_TOKEN), 'x-forwarded-for': '198.51.100.200' }, socket),
      429,
      'too_many_attempts',
    );
    // Another socket naming the same forwarded address is not locked.
    expect(
      (await projects(local, { ...bearer(TEST_ADMIN_TOKEN), 'x-forwarded-for': '198.51.100.1' }, '192.0.2.11')).statusCode,
    ).toBe(200);
  });

  it('uses the right-most X-Forwarded-For entry with TRUSTED_PROXY_COUNT 1', async () => {
    const local = await freshApp({ config: { trustedProxyCount: 1 } });
    const proxy = '10.0.0.1';
    for (let i = 0; i < 5; i++) {
      // The client may write whatever it likes on the left; the proxy appends the real address.
      expectError(
        await projects(local, { ...bearer(WRONG_TOKEN), 'x-forwarded-for': `1.1.1.${i}, 198.51.100.7` }, proxy),
        401,
        'unauthorized',
      );
    }
    expectError(
      await projects(local, { ...bearer(TEST_ADMIN_TOKEN), 'x-forwarded-for': '198.51.100.7' }, proxy),
      429,
      'too_many_attempts',
    );
    // Another client behind the same proxy is not locked.
    expect(
      (await projects(local, { ...bearer(TEST_ADMIN_TOKEN), 'x-forwarded-for': '198.51.100.8' }, proxy)).statusCode,
    ).toBe(200);
    // And the locked client is locked whichever proxy socket it arrives on.
    expectError(
      await projects(local, { ...bearer(TEST_ADMIN_TOKEN), 'x-forwarded-for': '198.51.100.7' }, '10.0.0.2'),
      429,
      'too_many_attempts',
    );
  });

  it('/health and /ready are never throttled, even while the address is locked', async () => {
    const address = uniqueAddress();
    await lockAddress(app, address);
    expectError(await projects(app, bearer(TEST_ADMIN_TOKEN), address), 429, 'too_many_attempts');
    for (const headers of [{}, bearer(TEST_ADMIN_TOKEN), bearer(WRONG_TOKEN)]) {
      const health = await app.inject({ method: 'GET', url: '/health', headers, remoteAddress: address });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/ready', headers, remoteAddress: address });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().status).toBe('ready');
    }
  });

  it('wrong credentials sent to /health and /ready are not counted', async () => {
    const address = uniqueAddress();
    for (let i = 0; i < 6; i++) {
      await app.inject({ method: 'GET', url: '/health', headers: bearer(WRONG_TOKEN), remoteAddress: address });
      await app.inject({ method: 'GET', url: '/ready', headers: bearer(WRONG_TOKEN), remoteAddress: address });
    }
    expect((await projects(app, bearer(TEST_ADMIN_TOKEN), address)).statusCode).toBe(200);
  });

  it('records the last use of a key, at most once a minute', async () => {
    const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
    const project = await seedProject(db.pool, keyring, 'last-use');
    const lastUsed = async () =>
      (await db.pool.query<{ at: Date | null }>('SELECT last_used_at AS at FROM api_keys WHERE prefix = $1', [project.keyPrefix])).rows[0]!.at;
    const ingest = () => app.inject({ method: 'POST', url: '/v1/events/batch', headers: bearer(project.apiKey), payload: { events: [] } });
    expect(await lastUsed()).toBeNull();
    await ingest();
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await ingest();
    expect(await lastUsed()).toEqual(first);
    await db.pool.query("UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE prefix = $1", [project.keyPrefix]);
    const aged = await lastUsed();
    await ingest();
    expect((await lastUsed())!.getTime()).toBeGreaterThan(aged!.getTime());
  });

  it('answers 401 for an API key whose hash was written under an encryption key no longer configured', async () => {
    const keyA = createKeyring({ current: 'encryption-key-A-0123456789abcdefghijklmnop' });
    const keyB = createKeyring({ current: 'encryption-key-B-0123456789abcdefghijklmnop' });
    const project = await seedProject(db.pool, keyA, 'old-key');
    const underA = await freshApp({ keyring: keyA });
    const underB = await freshApp({ keyring: keyB });
    const ingest = (target: FastifyInstance) =>
      target.inject({ method: 'POST', url: '/v1/events/batch', headers: bearer(project.apiKey), payload: { events: [] } });
    expect((await ingest(underA)).statusCode).toBe(202);
    expectError(await ingest(underB), 401, 'unauthorized');
  });

  it('never holds back reads with a valid API key on a locked address, while the admin token is held back', async () => {
    const address = uniqueAddress();
    await lockAddress(app, address);
    const read = await app.inject({ method: 'GET', url: '/v1/journeys/none', headers: bearer(seeded.apiKey), remoteAddress: address });
    expectError(read, 404, 'not_found');
    expectError(await projects(app, bearer(TEST_ADMIN_TOKEN), address), 429, 'too_many_attempts');
    const wrongKey = await app.inject({
      method: 'GET',
      url: '/v1/journeys/none',
      headers: bearer(`${seeded.apiKey.slice(0, -4)}AAAA`),
      remoteAddress: address,
    });
    expectError(wrongKey, 429, 'too_many_attempts');
  });

  it('selects the project by x-service-project-id and refuses a bad, unknown or missing selection', async () => {
    const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
    const second = await seedProject(db.pool, keyring, 'second-project');
    const read = (headers: Record<string, string>) =>
      app.inject({ method: 'GET', url: '/v1/journeys/none', headers: { ...bearer(TEST_ADMIN_TOKEN), ...headers }, remoteAddress: uniqueAddress() });
    expectError(await read({ 'x-service-project-id': second.projectId }), 404, 'not_found');
    expectError(await read({ 'x-service-project-id': second.projectId.toUpperCase() }), 404, 'not_found');
    expectError(await read({}), 404, 'project_not_found');
    expectError(await read({ 'x-service-project-id': 'not-a-uuid' }), 404, 'project_not_found');
    expectError(await read({ 'x-service-project-id': '00000000-0000-4000-8000-000000000000' }), 404, 'project_not_found');
  });
});
