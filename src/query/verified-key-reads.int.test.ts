// Search and the journey list check an API key this instance verified before in memory and
// confirm its row in their own statement: one statement per request, and a key revoked (or
// changed) through another instance is refused by the very next read, before any query error.
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../db/pool.ts';
import { bearer, buildTestApp } from '../../test/helpers/app.ts';
import { createApiKey } from '../auth/api-key-service.ts';
import { NOW_MS, createReadFixture, ingest, keyring, refusal, type ReadFixture } from './test-fixtures.ts';

let fx: ReadFixture;
let secondPool: Pool;
/** A second instance of the service on the same database. */
let second: FastifyInstance;
/** Statements the first instance's pool ran, by text. */
const statements: string[] = [];

beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [
    { id: 'evt-v1', journeyId: 'jrn-v1', timestamp: '2026-02-10T10:00:00.000Z', entity: { type: 'order', id: 'ORD-V1' } },
  ]);
  secondPool = createPool({ connectionString: fx.db.url, max: 2, statementTimeoutMs: 0 });
  second = (await buildTestApp(secondPool, { keyring, now: () => NOW_MS })).app;
  const query = fx.db.pool.query.bind(fx.db.pool) as (...args: unknown[]) => Promise<unknown>;
  (fx.db.pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    statements.push(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text);
    return query(...args);
  };
});
afterAll(async () => {
  await second.close();
  await secondPool.end();
  await fx.close();
});

let apiKey: string;
let prefix: string;
/** Each test reads from an address of its own, so refusals of one never lock another. */
let address = 0;
beforeEach(async () => {
  address++;
  // A fresh key per test, so that each test starts with a key neither instance has seen.
  const created = await createApiKey(fx.db.pool, keyring, { projectSlug: 'acme', environmentName: 'production', name: 'reader', defaultRetentionDays: 30 });
  apiKey = created.apiKey;
  prefix = created.keyPrefix;
});

const read = (url: string, token = apiKey, app = fx.app) => app.inject({ method: 'GET', url, headers: bearer(token), remoteAddress: `10.0.0.${address}` });
const SEARCH = '/v1/search?q=ORD-V1';
const LIST = '/v1/journeys?since=2026-02-01T00:00:00Z';
const journeyIds = (body: string) => (JSON.parse(body) as { data: { items: Array<{ journeyId: string }> } }).data.items.map((item) => item.journeyId);
const revokeElsewhere = async () => {
  const response = await second.inject({ method: 'DELETE', url: `/v1/api-keys/${prefix}`, headers: bearer('test-admin-token-0123456789abcdefghijklmnop') });
  expect(response.statusCode, response.body).toBe(204);
};

describe('a key this instance verified before', () => {
  it.each([['search', SEARCH], ['list', LIST]])('%s runs one statement for the key and the page together', async (_name, url) => {
    expect((await read(url)).statusCode).toBe(200);
    statements.length = 0;
    const response = await read(url);
    expect(response.statusCode).toBe(200);
    expect(journeyIds(response.body)).toEqual(['jrn-v1']);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain('FROM api_keys k');
  });

  it.each([['search', SEARCH], ['list', LIST]])('%s answers exactly as the full check does, empty pages included', async (_name, url) => {
    const first = await read(url);
    const again = await read(url);
    expect(again.body).toBe(first.body);
    const empty = `${url}&environment=staging`;
    expect((await read(empty)).body).toBe(JSON.stringify({ data: { items: [], nextCursor: null } }));
    const none = url.replace('ORD-V1', 'no-such-order').replace('2026-02-01', '2026-02-20');
    const firstEmpty = await read(none);
    expect(JSON.parse(firstEmpty.body)).toEqual({ data: { items: [], nextCursor: null } });
  });

  it.each([['search', SEARCH], ['list', LIST]])('%s refuses a key revoked through another instance at once', async (_name, url) => {
    expect((await read(url)).statusCode).toBe(200);
    await revokeElsewhere();
    expect(refusal(await read(url), 401)).toBe('unauthorized');
    expect(refusal(await read(url), 401)).toBe('unauthorized');
  });

  it.each([
    ['an unknown parameter (the contract hook)', `${SEARCH}&bogus=1`],
    ['a bad since (the handler)', '/v1/journeys?since=yesterday'],
    ['another environment (nothing to read)', `${SEARCH}&environment=staging`],
  ])('refuses a revoked key before %s', async (_name, url) => {
    expect((await read(SEARCH)).statusCode).toBe(200);
    expect((await read(LIST)).statusCode).toBe(200);
    await revokeElsewhere();
    expect(refusal(await read(url), 401)).toBe('unauthorized');
  });

  it('still answers the query error of a standing key', async () => {
    expect((await read(SEARCH)).statusCode).toBe(200);
    expect(refusal(await read(`${SEARCH}&bogus=1`), 400)).toBe('invalid_query');
    expect(refusal(await read('/v1/journeys?since=yesterday'), 400)).toBe('invalid_query');
  });

  it('refuses the key once its stored hash changed, and a wrong secret under a known prefix', async () => {
    expect((await read(SEARCH)).statusCode).toBe(200);
    const wrong = `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
    expect(refusal(await read(SEARCH, wrong), 401)).toBe('unauthorized');
    await fx.db.pool.query(`UPDATE api_keys SET hash = repeat('0', 64) WHERE prefix = $1`, [prefix]);
    expect(refusal(await read(SEARCH), 401)).toBe('unauthorized');
  });

  it('refuses any other secret under the prefix of a known key', async () => {
    expect((await read(SEARCH)).statusCode).toBe(200);
    const prefixChars = prefix.length;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9_-]{24}$/), fc.constantFrom(SEARCH, LIST), async (rest, url) => {
        const token = `${prefix}${rest}`;
        fc.pre(token !== apiKey && token.length === apiKey.length && prefixChars + 24 === apiKey.length);
        run++;
        const response = await fx.app.inject({ method: 'GET', url, headers: bearer(token), remoteAddress: `10.1.${address}.${run % 250}` });
        expect(refusal(response, 401)).toBe('unauthorized');
      }),
      { numRuns: 40 },
    );
    expect((await read(SEARCH)).statusCode).toBe(200);
  });

  it('refuses the key once its project is deleted', async () => {
    expect((await read(SEARCH)).statusCode).toBe(200);
    await fx.db.pool.query('DELETE FROM api_keys WHERE prefix = $1', [prefix]);
    expect(refusal(await read(SEARCH), 401)).toBe('unauthorized');
  });

  it('records the key\'s last use to the minute, as the full check does', async () => {
    expect((await read(SEARCH, apiKey, second)).statusCode).toBe(200);
    expect((await read(SEARCH)).statusCode).toBe(200);
    await fx.db.pool.query(`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE prefix = $1`, [prefix]);
    expect((await read(SEARCH)).statusCode).toBe(200);
    const { rows } = await fx.db.pool.query<{ recent: boolean }>(
      `SELECT last_used_at > now() - interval '1 minute' AS recent FROM api_keys WHERE prefix = $1`, [prefix]);
    expect(rows[0]!.recent).toBe(true);
  });

  it('counts the refusal of a revoked key against the address', async () => {
    expect((await read(SEARCH)).statusCode).toBe(200);
    await revokeElsewhere();
    for (let i = 0; i < 5; i++) expect(refusal(await read(SEARCH), 401)).toBe('unauthorized');
    expect(refusal(await read(SEARCH, 'not-a-key'), 429)).toBe('too_many_attempts');
  });
});
