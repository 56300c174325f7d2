import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encryptField } from '../crypto/field-encryption.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { searchToken } from '../crypto/search-tokens.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { countKeyUsage } from './key-usage.ts';
import { reencryptStoredData } from './reencrypt.ts';
import { ROTATION_LOCK_KEY } from '../db/advisory-lock.ts';
import { countUnreadableValues, reportUnreadableValues } from './startup-check.ts';
import { KEYRING_A, KEYRING_B, KEYRING_BA, cli, envelopes, ingestBatch, journeyFixture, plainValues } from './test-rotation-kit.ts';

/** The rotation job's edges: a lost lock, unreadable and damaged values, no previous key, the start-up check. */

const KEYRING_C = createKeyring({ current: 'rotation-key-C-0123456789abcdefghijklmnopqrstuv' });

let db: TestDatabase;
let project: SeededProject;
let app: FastifyInstance | null = null;

beforeEach(async () => {
  db = await createTestDatabase();
  project = await seedProject(db.pool, KEYRING_A, 'acme');
});
afterEach(async () => {
  await app?.close();
  app = null;
  await db.drop();
});
afterAll(async () => {
  await app?.close();
});

async function ingestUnder(keyring: typeof KEYRING_A, count: number) {
  app ??= (await buildTestApp(db.pool, { keyring })).app;
  const journeys = Array.from({ length: count }, journeyFixture);
  const result = await ingestBatch(app, project.apiKey, journeys.flatMap(envelopes));
  expect(result.results.every((r) => r.status === 'accepted')).toBe(true);
  return journeys;
}

/** Journeys written straight into the table, to have more than one batch cheaply. */
async function insertJourneys(count: number): Promise<void> {
  const environment = await db.pool.query<{ id: string }>('SELECT id FROM environments WHERE project_id = $1', [project.projectId]);
  const ids = Array.from({ length: count }, (_, i) => `jrn_bulk_${String(i).padStart(5, '0')}`);
  await db.pool.query(
    `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, started_at, last_event_at)
     SELECT $1, u.id, $2, 'order', u.entity, now(), now() FROM unnest($3::text[], $4::text[]) AS u(id, entity)`,
    [project.projectId, environment.rows[0]!.id, ids, ids.map((id) => encryptField(KEYRING_A, `entity-${id}`))],
  );
}

async function terminateLockHolder(): Promise<boolean> {
  const result = await db.pool.query<{ ok: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ok FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND granted`,
    [ROTATION_LOCK_KEY],
  );
  return result.rows.some((row) => row.ok);
}

describe('rotate:reencrypt', () => {
  it('stops when the lock is lost between batches; committed batches stay moved', async () => {
    await insertJourneys(5);
    const result = await reencryptStoredData(db.pool, KEYRING_BA, {
      batchSize: 2,
      onBatch: async (progress) => {
        if (progress.batch === 1) expect(await terminateLockHolder()).toBe(true);
      },
    });
    expect(result).toMatchObject({ outcome: 'lock_lost', batches: 1, journeys: 2 });
    const usage = await countKeyUsage(db.pool, KEYRING_BA);
    expect(usage.entityIds).toEqual({ current: 2, previous: 3, unreadable: 0 });
    // The lock is free again and the pool still works: a new run finishes the job.
    expect((await reencryptStoredData(db.pool, KEYRING_BA, { batchSize: 2 })).outcome).toBe('completed');
    expect((await countKeyUsage(db.pool, KEYRING_BA)).entityIds).toEqual({ current: 5, previous: 0, unreadable: 0 });
  });

  it('exits 1 through the CLI when the lock is lost during the run', async () => {
    await insertJourneys(1200);
    let stop = false;
    const killer = (async () => {
      while (!stop && !(await terminateLockHolder())) await new Promise((resolve) => setTimeout(resolve, 2));
    })();
    const run = await cli(db.pool, KEYRING_BA, ['rotate:reencrypt']);
    stop = true;
    await killer;
    expect(run.status).toBe(1);
    expect(run.err.join('\n')).toMatch(/the rotation lock was lost after \d+ batches/);
    expect((await countKeyUsage(db.pool, KEYRING_BA)).entityIds.previous).toBeGreaterThan(0);
  });

  it('walks several batches of 500 and re-keys a token already present under the new key once', async () => {
    const [journey] = await ingestUnder(KEYRING_A, 1);
    await app!.close();
    app = (await buildTestApp(db.pool, { keyring: KEYRING_BA })).app;
    // Same journey, same message id, under B: its message token now exists under both keys; the
    // same trace id too, its token on each event under the key of that event's time.
    const again = envelopes({ ...journeyFixture(), journeyId: journey!.journeyId, traceId: journey!.traceId, messageId: journey!.messageId });
    await ingestBatch(app, project.apiKey, again.slice(0, 1));
    await insertJourneys(1100);
    const batches: number[] = [];
    const result = await reencryptStoredData(db.pool, KEYRING_BA, { onBatch: (p) => void batches.push(p.rows) });
    expect(result.outcome).toBe('completed');
    expect(batches).toEqual([500, 500, 101]);
    const messages = await db.pool.query('SELECT key_id FROM search_tokens WHERE journey_id = $1 AND kind = $2', [journey!.journeyId, 'message_id']);
    expect(messages.rows).toEqual([{ key_id: KEYRING_B.currentKeyId }]);
    const traces = await db.pool.query('SELECT DISTINCT trace_token, search_key_id FROM event_ids WHERE journey_id = $1', [journey!.journeyId]);
    expect(traces.rows).toEqual([{ trace_token: searchToken(KEYRING_B, journey!.traceId, 'current'), search_key_id: KEYRING_B.currentKeyId }]);
    expect((await cli(db.pool, KEYRING_BA, ['rotate:status'])).status).toBe(0);
  });

  it('leaves values it cannot read, reports them, and exits 1', async () => {
    const journeys = await ingestUnder(KEYRING_A, 2);
    // One value under a key nobody configured, one damaged value under the previous key.
    await db.pool.query('UPDATE journeys SET entity_id_encrypted = $1 WHERE id = $2', [encryptField(KEYRING_C, 'lost'), journeys[0]!.journeyId]);
    const damaged = encryptField(KEYRING_A, 'damaged').slice(0, -4) + 'AAAA';
    await db.pool.query('UPDATE journeys SET entity_id_encrypted = $1 WHERE id = $2', [damaged, journeys[1]!.journeyId]);

    const run = await cli(db.pool, KEYRING_BA, ['rotate:reencrypt']);
    expect(run.status).toBe(1);
    expect(run.err.join('\n')).toMatch(/4 values are still not under the current key/);
    for (const value of plainValues(journeys)) expect([...run.out, ...run.err].join('\n')).not.toContain(value);

    const status = await cli(db.pool, KEYRING_BA, ['rotate:status']);
    expect(status.status).toBe(1);
    expect(status.out.join('\n')).toMatch(/entity ids: 1 under the previous key, 1 unreadable under every configured key/);
    // Everything else of those journeys moved; only the two entity-id tokens have no readable value.
    expect(status.out.join('\n')).toMatch(/alias values: 0 under the previous key, 0 unreadable/);
    expect(status.out.join('\n')).toMatch(/search tokens: 2 under the previous key, 0 unreadable/);
  });

  it('with no previous key configured has nothing to move', async () => {
    await ingestUnder(KEYRING_A, 1);
    const run = await cli(db.pool, KEYRING_A, ['rotate:reencrypt']);
    expect(run.status).toBe(0);
    expect(run.out.join('\n')).toMatch(/ENCRYPTION_KEY_PREVIOUS is not set/);
    expect((await cli(db.pool, KEYRING_A, ['rotate:status'])).status).toBe(0);
    // Under B alone, A's data is unreadable: rotation cannot finish without A.
    const underB = await cli(db.pool, KEYRING_B, ['rotate:reencrypt']);
    expect(underB.status).toBe(1);
  });
});

describe('start-up check of unreadable data', () => {
  it('counts per table the values whose key is not configured, sets the gauge and logs counts only', async () => {
    const journeys = await ingestUnder(KEYRING_A, 2);
    await db.pool.query(
      `INSERT INTO replay_destinations (project_id, id, name, base_url, environment_type, headers_encrypted)
       VALUES ($1, $2, 'd', 'http://localhost:9', 'test', $3)`,
      [project.projectId, randomUUID(), encryptField(KEYRING_A, '{"x-token":"downstream-secret"}')],
    );
    expect(await countUnreadableValues(db.pool, KEYRING_BA)).toEqual({
      journeys: 0, journey_aliases: 0, search_tokens: 0, replay_destinations: 0, api_keys: 0,
    });
    const expected = { journeys: 2, journey_aliases: 6, search_tokens: 14, replay_destinations: 1, api_keys: 1 };
    expect(await countUnreadableValues(db.pool, KEYRING_B)).toEqual(expected);

    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const metrics = createMetrics(db.pool);
    await reportUnreadableValues(db.pool, KEYRING_B, metrics, logger);
    const gauge = await metrics.unreadableValues.get();
    expect(Object.fromEntries(gauge.values.map((v) => [v.labels.table, v.value]))).toEqual(expected);
    const warning = lines.map((line) => JSON.parse(line) as { level: number; unreadableValues?: unknown }).find((l) => l.level === 40);
    expect(warning?.unreadableValues).toEqual(expected);
    for (const value of [...plainValues(journeys), 'downstream-secret']) expect(lines.join('')).not.toContain(value);
  });

  it('never throws: an unmigrated schema is skipped with an info line', async () => {
    await db.pool.query('DROP TABLE search_tokens');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    expect(await reportUnreadableValues(db.pool, KEYRING_A, createMetrics(db.pool), logger)).toBeNull();
    expect(lines.join('')).toMatch(/not migrated yet/);
  });
});
