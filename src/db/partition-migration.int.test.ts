// Migration 0017 moves events into day partitions: a database built by the migrations before
// it, holding events of every age, comes out with every event, every replay run, and event ids
// that still make a resent event a duplicate (and a changed one a conflict).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject } from '../../test/helpers/app.ts';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { addReplayRuns } from '../deletion/test-fixtures.ts';
import { listMigrations, migrate } from './migrate.ts';
import type { Pool } from './pool.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const PARTITIONING = 17;
// Parents before children, as the foreign keys need them.
const TABLES = ['projects', 'environments', 'api_keys', 'journeys', 'journey_aliases', 'search_tokens', 'events', 'replay_destinations', 'replay_runs'];
let source: TestDatabase;
let old: TestDatabase;

beforeAll(async () => {
  source = await createTestDatabase();
  old = await createEmptyDatabase();
});
afterAll(async () => {
  await source.drop();
  await old.drop();
});

function envelope(id: string, journeyId: string, name = 'receive') {
  return {
    protocolVersion: '0.1',
    event: {
      id, journeyId, environment: 'production', service: 'checkout', entity: { type: 'order', id: `order-${journeyId}` },
      operation: 'received', name, timestamp: '2026-01-10T12:00:00.000Z', aliases: { email: `${journeyId}@example.com` },
      input: { amount: 12, items: [id] },
    },
  };
}

/** The schema as the migrations before partitioning left it, with their bookkeeping. */
async function migrateBefore(pool: Pool, version: number): Promise<void> {
  await pool.query(`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const migration of listMigrations().filter((m) => m.version < version)) {
    await pool.query(migration.sql);
    await pool.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
  }
}

async function copyRows(from: Pool, to: Pool): Promise<void> {
  for (const table of TABLES) {
    const rows = await from.query<{ rows: unknown }>(`SELECT coalesce(json_agg(t), '[]') AS rows FROM ${table} t`);
    await to.query(`INSERT INTO ${table} OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [
      JSON.stringify(rows.rows[0]!.rows),
    ]);
  }
}

const allEvents = async (pool: Pool) =>
  (await pool.query(`SELECT to_jsonb(e) AS row FROM events e ORDER BY project_id, id COLLATE "C"`)).rows.map((r) => r.row);

describe('migration 0017', () => {
  it('moves every event of a database made by the earlier migrations into partitions, keeping ids and replay runs', async () => {
    const { app } = await buildTestApp(source.pool, { keyring });
    const project = await seedProject(source.pool, keyring, 'before-partitions');
    const sent = Array.from({ length: 60 }, (_, i) => envelope(`evt-${i}`, `jrn-${i % 7}`));
    const send = (events: unknown[]) =>
      app.inject({
        method: 'POST',
        url: '/v1/events/batch',
        headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ events }),
      });
    expect((await send(sent)).statusCode).toBe(202);
    expect(await addReplayRuns(source.pool, project.projectId, 'jrn-3')).toBeGreaterThan(0);
    await app.close();

    await migrateBefore(old.pool, PARTITIONING);
    await copyRows(source.pool, old.pool);
    // Events of every age: years back (the history partition), today, and a clock far ahead
    // (the default partition).
    await old.pool.query(`UPDATE events SET received_at = received_at - interval '400 days' WHERE id IN ('evt-1', 'evt-2', 'evt-30')`);
    await old.pool.query(`UPDATE events SET received_at = received_at + interval '5 years' WHERE id = 'evt-4'`);
    const before = await allEvents(old.pool);
    const runsBefore = (await old.pool.query('SELECT * FROM replay_runs ORDER BY id')).rows;
    expect(before).toHaveLength(60);

    const applied = await migrate(old.pool);
    expect(applied.map((m) => m.version)).toContain(PARTITIONING);

    // Every column the events had before, unchanged (later migrations add columns, NULL here).
    const columns = Object.keys(before[0]);
    const after = (await allEvents(old.pool)).map((row) => Object.fromEntries(columns.map((c) => [c, row[c]])));
    expect(after).toEqual(before);
    expect((await old.pool.query('SELECT * FROM replay_runs ORDER BY id')).rows).toEqual(runsBefore);
    const ids = await old.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM event_ids i JOIN events e USING (project_id, id, received_at)',
    );
    expect(ids.rows[0]!.n).toBe(60);
    const where = await old.pool.query<{ id: string; part: string }>(
      `SELECT id, tableoid::regclass::text AS part FROM events WHERE id IN ('evt-1', 'evt-4', 'evt-5') ORDER BY id`,
    );
    expect(where.rows.map((r) => [r.id, r.part.replace(/^events_p\d{8}$/, 'a day')])).toEqual([
      ['evt-1', 'events_history'],
      ['evt-4', 'events_default'],
      ['evt-5', 'a day'],
    ]);

    // Idempotency holds for the old ids, whatever partition they went to.
    const migrated = (await buildTestApp(old.pool, { keyring })).app;
    try {
      const again = await migrated.inject({
        method: 'POST',
        url: '/v1/events/batch',
        headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ events: [sent[1], sent[4], sent[5], envelope('evt-30', 'jrn-2', 'changed'), envelope('evt-new', 'jrn-1')] }),
      });
      expect(again.statusCode).toBe(202);
      const results = again.json().data.results as Array<{ status: string; duplicate?: boolean; error?: { code: string } }>;
      expect(results.map((r) => (r.status === 'accepted' ? (r.duplicate ? 'duplicate' : 'accepted') : r.error!.code))).toEqual([
        'duplicate',
        'duplicate',
        'duplicate',
        'event_id_conflict',
        'accepted',
      ]);
    } finally {
      await migrated.close();
    }

    // Deleting a journey still takes its events, ids and replay runs, in every partition.
    await old.pool.query(`DELETE FROM journeys WHERE project_id = $1 AND id = 'jrn-3'`, [project.projectId]);
    const left = await old.pool.query<{ events: number; ids: number; runs: number }>(
      `SELECT (SELECT count(*) FROM events WHERE journey_id = 'jrn-3')::int AS events,
              (SELECT count(*) FROM event_ids WHERE journey_id = 'jrn-3')::int AS ids,
              (SELECT count(*) FROM replay_runs)::int AS runs`,
    );
    expect(left.rows[0]).toEqual({ events: 0, ids: 0, runs: 0 });
  });
});
