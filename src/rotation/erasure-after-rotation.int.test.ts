import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { KEY_A, KEY_B, KEYRING_A, KEYRING_B, KEYRING_BA, cli, envelopes, ingestBatch, journeyFixture } from './test-rotation-kit.ts';
import { hexId, jsonTraces } from '../otlp/test-payloads.ts';
import { createKeyFreshness, KEY_FRESHNESS_TTL_MS, recordKeySuccession, supersedingKeyId } from './key-mismatch.ts';

/**
 * Erasure under the outgoing key after a rotation: ingest under K1 (A), rotate:reencrypt to K2
 * (B), then erase with K1 alone. Before, "deleted 0 journeys", exit 0 and complete true while
 * the journey was still found under K2. Now every process on the outgoing key refuses, and no
 * erasure calls itself complete when the value was not searchable under every key the data uses.
 */

const CLI_MAIN = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
const victim = journeyFixture();
const EMAIL = victim.aliases.email!;
let db: TestDatabase;
let project: SeededProject;

const count = async (sql: string, params: unknown[] = []) => Number((await db.pool.query<{ n: string }>(sql, params)).rows[0]!.n);
const journeyStored = () => count('SELECT count(*) AS n FROM journeys WHERE id = $1', [victim.journeyId]);
const erasureRows = () => db.pool.query<{ details: Record<string, unknown> }>("SELECT details FROM audit_log WHERE action = 'erasure.completed' ORDER BY id");

/** The real CLI entry with only these variables, as an operator runs it. */
function jtrace(env: Record<string, string>, argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, ...argv], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function erase(app: FastifyInstance, dryRun = false) {
  return app.inject({
    method: 'POST',
    url: '/v1/erasures',
    headers: { 'content-type': 'application/json', ...bearer(TEST_ADMIN_TOKEN), 'x-service-project-id': project.projectId },
    payload: JSON.stringify({ value: EMAIL, ...(dryRun ? { dryRun: true } : {}) }),
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  const { app } = await buildTestApp(db.pool, { keyring: KEYRING_A });
  project = await seedProject(db.pool, KEYRING_A, 'acme');
  expect((await ingestBatch(app, project.apiKey, envelopes(victim))).status).toBe(202);
  await app.close();
  const rotated = await cli(db.pool, KEYRING_BA, ['rotate:reencrypt']);
  expect(rotated.status).toBe(0);
  // Content hashes and the unused API key stay under K1: what a rotation cannot move.
  expect(await count("SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL")).toBe(1);
});
afterAll(async () => {
  await db.drop();
});

describe('a process on the outgoing key after a rotation', () => {
  it('records the succession: K1 is superseded by K2, K2 by nothing', async () => {
    expect(await supersedingKeyId(db.pool, KEYRING_A)).toBe(KEYRING_B.currentKeyId);
    expect(await supersedingKeyId(db.pool, KEYRING_B)).toBeNull();
    expect(await supersedingKeyId(db.pool, KEYRING_BA)).toBeNull();
  });

  it('ENCRYPTION_KEY=K1 jtrace delete:identifier refuses with exit 1 naming ENCRYPTION_KEY, and deletes nothing', async () => {
    const run = await jtrace({ DATABASE_URL: db.url, ENCRYPTION_KEY: KEY_A, ADMIN_TOKEN: TEST_ADMIN_TOKEN }, ['delete:identifier', 'acme', EMAIL]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('ENCRYPTION_KEY has been replaced by a newer key');
    expect(run.stderr).not.toContain(EMAIL);
    expect(run.stderr).not.toContain(KEY_A);
    expect(await journeyStored()).toBe(1);
    expect((await erasureRows()).rows).toEqual([]);
  });

  it.each<[string[]]>([
    [['delete:identifier', 'acme', EMAIL]],
    [['delete:identifier', 'acme', EMAIL, '--dry-run']],
    [['delete:range', 'acme', 'production', '--before', '2100-01-01']],
    [['key:create', 'acme', 'production', 'stale key']],
    [['rotate:reencrypt']],
    [['rotate:status']],
  ])('%o refuses with exit 1 and changes nothing', async (argv) => {
    const before = await count('SELECT (SELECT count(*) FROM journeys) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM audit_log) AS n');
    const run = await cli(db.pool, KEYRING_A, argv);
    expect([run.status, run.out]).toEqual([1, []]);
    expect(run.err.join('\n')).toContain('ENCRYPTION_KEY has been replaced by a newer key');
    expect(await count('SELECT (SELECT count(*) FROM journeys) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM audit_log) AS n')).toBe(before);
  });

  it('a server started with K1 answers POST /v1/erasures (and its dry run) 503 key_superseded and writes no audit row', async () => {
    const { app } = await buildTestApp(db.pool, { keyring: KEYRING_A });
    try {
      for (const dryRun of [false, true]) {
        const response = await erase(app, dryRun);
        expect(response.statusCode).toBe(503);
        expect(response.json().error).toMatchObject({ code: 'key_superseded', requestId: expect.any(String) });
        expect(response.body).not.toContain(EMAIL);
      }
    } finally {
      await app.close();
    }
    expect(await journeyStored()).toBe(1);
    expect((await erasureRows()).rows).toEqual([]);
  });

  it('a server started with K1 refuses to ingest (single, batch, dry run, OTLP) and to create a destination with 503 key_superseded; one with K2 ingests', async () => {
    const fresh = journeyFixture();
    const [first] = envelopes(fresh) as Array<{ event: { id: string } }>;
    const json = { 'content-type': 'application/json', ...bearer(project.apiKey) };
    const { app } = await buildTestApp(db.pool, { keyring: KEYRING_A, config: { otlpEnabled: true } });
    try {
      const requests = [
        { url: '/v1/events', payload: JSON.stringify(first) },
        { url: '/v1/events/batch', payload: JSON.stringify({ events: [first] }) },
        { url: '/v1/events/batch?dryRun=true', payload: JSON.stringify({ events: [first] }) },
      ];
      for (const request of requests) {
        const response = await app.inject({ method: 'POST', headers: json, ...request });
        expect([request.url, response.statusCode, response.json().error?.code]).toEqual([request.url, 503, 'key_superseded']);
      }
      const otlp = await app.inject({
        method: 'POST',
        url: '/v1/traces',
        headers: json,
        payload: JSON.stringify(jsonTraces('checkout', [{ traceId: hexId(16), spanId: hexId(8), name: 'step', startMs: Date.now(), durationMs: 1, attributes: { 'jtrace.journey.id': fresh.journeyId, 'jtrace.entity.type': 'order', 'jtrace.entity.id': 'o-1', 'jtrace.operation': 'received' } }])),
      });
      expect(otlp.statusCode).toBe(503);
      const destination = await app.inject({
        method: 'POST',
        url: '/v1/replay-destinations',
        headers: { 'content-type': 'application/json', ...bearer(TEST_ADMIN_TOKEN), 'x-service-project-id': project.projectId },
        payload: JSON.stringify({ name: 'stale', baseUrl: 'http://localhost:9/x', environmentType: 'local', headers: { authorization: 'Bearer s' } }),
      });
      expect([destination.statusCode, destination.json().error?.code]).toEqual([503, 'key_superseded']);
    } finally {
      await app.close();
    }
    expect(await count('SELECT count(*) AS n FROM journeys WHERE id = $1', [fresh.journeyId])).toBe(0);
    // The API key authenticates under K2 as well once it moved: the up-to-date server ingests.
    const current = (await buildTestApp(db.pool, { keyring: KEYRING_BA })).app;
    try {
      expect((await ingestBatch(current, project.apiKey, [first])).status).toBe(202);
    } finally {
      await current.close();
    }
    await db.pool.query('DELETE FROM journeys WHERE id = $1', [fresh.journeyId]);
  });

  it('jtrace doctor with K1 fails its keys check, naming the fix', async () => {
    const run = await cli(db.pool, KEYRING_A, ['doctor', '--api-url', 'http://127.0.0.1:9']);
    const keys = run.out.find((line) => line.startsWith('fail keys'));
    expect(keys).toMatch(/^fail keys ENCRYPTION_KEY has been replaced by a newer key.*; fix: set ENCRYPTION_KEY to the new key/);
    expect(run.status).toBe(1);
  });

  it('without the record of the rotation, what a rotation moves decides: K1 holds none of it and is refused', async () => {
    await db.pool.query('DELETE FROM key_successions');
    try {
      // Content hashes stay under K1 for good: they no longer count as K1 being in use.
      expect(await count('SELECT count(*) AS n FROM events WHERE content_hash_key_id = $1', [KEYRING_A.currentKeyId])).toBe(2);
      const run = await cli(db.pool, KEYRING_A, ['delete:identifier', 'acme', EMAIL]);
      expect(run.status).toBe(1);
      expect(run.err.join('\n')).toContain('none of it is under ENCRYPTION_KEY');
      expect(await journeyStored()).toBe(1);
    } finally {
      await recordKeySuccession(db.pool, KEYRING_BA);
    }
  });

  it('the new key alone erases the journey, complete', async () => {
    const run = await cli(db.pool, KEYRING_B, ['delete:identifier', 'acme', EMAIL]);
    expect(run.out).toEqual(['deleted 1 journeys (2 events)']);
    expect(run.status).toBe(0);
    expect(await journeyStored()).toBe(0);
    expect((await erasureRows()).rows.map((row) => row.details.complete)).toEqual([true]);
  });
});

describe('an erasure that cannot search under every key the data uses', () => {
  it('deletes what it finds and says complete false, in the answer and the audit row', async () => {
    const other = await createTestDatabase();
    try {
      // Journeys under K1 whose key was removed before they were moved, and one under K2.
      const underA = journeyFixture();
      const underB = journeyFixture();
      const appA = (await buildTestApp(other.pool, { keyring: KEYRING_A })).app;
      const seeded = await seedProject(other.pool, KEYRING_A, 'acme');
      expect((await ingestBatch(appA, seeded.apiKey, envelopes(underA))).status).toBe(202);
      await appA.close();
      const appB = (await buildTestApp(other.pool, { keyring: KEYRING_B })).app;
      const keyB = await seedProject(other.pool, KEYRING_B, 'beta');
      expect((await ingestBatch(appB, keyB.apiKey, envelopes(underB))).status).toBe(202);
      const response = await appB.inject({
        method: 'POST',
        url: '/v1/erasures',
        headers: { 'content-type': 'application/json', ...bearer(TEST_ADMIN_TOKEN), 'x-service-project-id': seeded.projectId },
        payload: JSON.stringify({ value: underA.aliases.email }),
      });
      await appB.close();
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toMatchObject({ deletedJourneys: 0, complete: false, message: expect.stringContaining('ENCRYPTION_KEY_PREVIOUS') });
      const rows = await other.pool.query<{ details: Record<string, unknown> }>("SELECT details FROM audit_log WHERE action = 'erasure.completed'");
      expect(rows.rows.map((row) => row.details.complete)).toEqual([false]);
      // Under K1 and K2 the value is searchable everywhere: complete.
      const both = await cli(other.pool, KEYRING_BA, ['delete:identifier', 'acme', underA.aliases.email!]);
      expect(both.out).toEqual(['deleted 1 journeys (2 events)']);
    } finally {
      await other.drop();
    }
  });

  it('the server asks at most once per interval, and sees a rotation within it', async () => {
    const other = await createTestDatabase();
    try {
      let clock = 1_000_000;
      let queries = 0;
      const counted = { query: (...args: Parameters<typeof other.pool.query>) => (queries++, other.pool.query(...args)) } as unknown as typeof other.pool;
      const freshness = createKeyFreshness(counted, KEYRING_A, () => clock);
      expect(await Promise.all([freshness.superseded(), freshness.superseded()])).toEqual([false, false]);
      expect(queries).toBe(1);
      await recordKeySuccession(other.pool, KEYRING_BA);
      expect(await freshness.superseded()).toBe(false);
      clock += KEY_FRESHNESS_TTL_MS;
      expect(await freshness.superseded()).toBe(true);
      expect(queries).toBe(2);
    } finally {
      await other.drop();
    }
  });

  it('a schema without the table (a build ahead of jtrace migrate) records and refuses nothing', async () => {
    const empty = await createEmptyDatabase();
    try {
      await expect(recordKeySuccession(empty.pool, KEYRING_BA)).resolves.toBeUndefined();
      expect(await supersedingKeyId(empty.pool, KEYRING_A)).toBeNull();
    } finally {
      await empty.drop();
    }
  });

  it('a rotation back to an earlier key clears that key\'s succession', async () => {
    const other = await createTestDatabase();
    try {
      await recordKeySuccession(other.pool, KEYRING_BA);
      expect(await supersedingKeyId(other.pool, KEYRING_A)).toBe(KEYRING_B.currentKeyId);
      const back = createKeyring({ current: KEY_A, previous: KEY_B });
      await recordKeySuccession(other.pool, back);
      expect(await supersedingKeyId(other.pool, KEYRING_A)).toBeNull();
      expect(await supersedingKeyId(other.pool, KEYRING_B)).toBe(KEYRING_A.currentKeyId);
    } finally {
      await other.drop();
    }
  });
});
