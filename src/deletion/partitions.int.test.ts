// Deletion over day partitions of events (migration 0017): retention drops a partition whose
// journeys have all expired (each by its own environment's retention) and deletes rows where a
// partition still holds a live journey; erasure and range deletion reach every partition.
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { ensureEventPartitions, listEventPartitions } from '../db/event-partitions.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { startRetentionSweeper, type RetentionSweeperDeps } from './retention-sweep.ts';
import { addReplayRuns, admin, auditRows, countTree, ingest, journeyIds, keyFor, type TestEvent } from './test-fixtures.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const NOW = Date.parse('2027-03-01T00:00:00.000Z');
let db: TestDatabase;
let counter = 0;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await db.drop();
});
beforeEach(async () => {
  await db.pool.query('DELETE FROM projects');
  // January 2027: days no other partition covers (the template's run up to a week past today);
  // a sweep drops the empty ones, so each test creates them again.
  await ensureEventPartitions(db.pool, Date.parse('2027-01-05T00:00:00Z'), 20);
});

/** Sends each group of events as received at its own instant (in increasing order). */
async function receive(apiKey: string, groups: Array<[string, TestEvent[]]>): Promise<void> {
  let clock = 0;
  const app = (await buildTestApp(db.pool, { keyring, now: () => clock })).app;
  apps.push(app);
  for (const [at, events] of groups) {
    clock = Date.parse(at);
    await ingest(app, apiKey, events);
  }
}

async function partitionNames(): Promise<string[]> {
  return (await listEventPartitions(db.pool)).map((p) => p.name);
}

async function eventIdRows(projectId: string): Promise<number> {
  return (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM event_ids WHERE project_id = $1', [projectId])).rows[0]!.n;
}

function sweep(options: Partial<RetentionSweeperDeps> = {}) {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const sweeper = startRetentionSweeper({ pool: db.pool, logger, metrics: createMetrics(), intervalMs: 3_600_000, now: () => NOW, ...options });
  return { run: () => sweeper.runOnce().finally(() => sweeper.stop()), logs };
}

const ev = (journeyId: string, timestamp: string): TestEvent => ({ journeyId, entityId: `entity-${journeyId}`, timestamp });
const EXPIRED = '2027-01-05T10:00:00.000Z';
const LIVE = '2027-02-20T10:00:00.000Z';

async function project(retentionDays = 30): Promise<SeededProject> {
  const seeded = await seedProject(db.pool, keyring, `partitions-${++counter}`);
  await db.pool.query('UPDATE environments SET retention_days = $2 WHERE project_id = $1', [seeded.projectId, retentionDays]);
  return seeded;
}

describe('retention over day partitions', () => {
  it('drops a partition whose journeys all expired, with those journeys, and deletes rows where a live journey remains', async () => {
    const p = await project();
    await receive(p.apiKey, [
      // 01-05: A (expired) and B (live: its later event is recent).
      ['2027-01-05T10:00:00Z', [ev('A', EXPIRED), ev('B', EXPIRED)]],
      // 01-06: A and D, both expired: the partition goes whole.
      ['2027-01-06T10:00:00Z', [ev('A', EXPIRED), ev('D', EXPIRED), ev('D', EXPIRED)]],
      // 01-07: B (live) and C (expired): partly expired, C's rows are deleted.
      ['2027-01-07T10:00:00Z', [ev('B', LIVE), ev('C', EXPIRED)]],
    ]);
    expect(await addReplayRuns(db.pool, p.projectId, 'A')).toBe(2);

    // The row batches come after the first partition pass: by then A and D went with the 6th.
    const beforeRows: string[][] = [];
    const { run, logs } = sweep({
      beforeBatch: async (_index, client) => void beforeRows.push(await journeyIds(client, p.projectId)),
    });
    const result = await run();
    expect(beforeRows[0]).toEqual(['B', 'C']);
    expect(result).toMatchObject({ outcome: 'completed', journeysDeleted: 3 });
    // The empty days of January before the 5th, the history partition and the 6th.
    expect(result.partitionsDropped).toBeGreaterThanOrEqual(1);
    const names = await partitionNames();
    expect(names).not.toContain('events_p20270106');
    expect(names).toEqual(expect.arrayContaining(['events_p20270105', 'events_p20270107', 'events_default']));
    expect(await journeyIds(db.pool, p.projectId)).toEqual(['B']);
    expect(await countTree(db.pool, p.projectId, 'B')).toMatchObject({ journeys: 1, events: 2 });
    for (const gone of ['A', 'C', 'D']) {
      expect(await countTree(db.pool, p.projectId, gone)).toEqual({ journeys: 0, events: 0, aliases: 0, tokens: 0, replayRuns: 0 });
    }
    expect(await eventIdRows(p.projectId)).toBe(2);
    expect((await db.pool.query('SELECT 1 FROM replay_runs WHERE project_id = $1', [p.projectId])).rowCount).toBe(0);
    expect(logs.find((line) => line.msg === 'retention sweep')).toMatchObject({ journeysDeleted: 3, partitionsDropped: result.partitionsDropped });

    // Nothing more to do: B is live in both remaining days.
    expect(await sweep().run()).toMatchObject({ outcome: 'completed', journeysDeleted: 0, partitionsDropped: 0 });
  });

  it("judges each journey by its own environment's retention", async () => {
    const p = await project(30);
    const stagingKey = await keyFor(db.pool, keyring, p.slug, 'staging', 365);
    await receive(p.apiKey, [['2027-01-08T10:00:00Z', [ev('prod-old', EXPIRED)]]]);
    await receive(stagingKey, [['2027-01-08T11:00:00Z', [{ ...ev('staging-old', EXPIRED), environment: 'staging' }]]]);

    const result = await sweep().run();
    expect(result).toMatchObject({ outcome: 'completed', journeysDeleted: 1 });
    expect(await partitionNames()).toContain('events_p20270108');
    expect(await journeyIds(db.pool, p.projectId)).toEqual(['staging-old']);
    expect(await countTree(db.pool, p.projectId, 'staging-old')).toMatchObject({ events: 1 });
  });

  it('deletes the journeys of a partition that holds more than one batch row by row, then drops it empty', async () => {
    const p = await project();
    await receive(p.apiKey, [['2027-01-09T10:00:00Z', [ev('x1', EXPIRED), ev('x2', EXPIRED), ev('x3', EXPIRED)]]]);
    const result = await sweep({ batchSize: 2 }).run();
    expect(result).toMatchObject({ outcome: 'completed', journeysDeleted: 3 });
    expect(await partitionNames()).not.toContain('events_p20270109');
    expect(await journeyIds(db.pool, p.projectId)).toEqual([]);
    expect(await eventIdRows(p.projectId)).toBe(0);
  });
});

describe('retention over day partitions, against a concurrent write', () => {
  it('leaves a day whose expired journey a concurrent write holds, and keeps that journey whole once it lives again', async () => {
    const p = await project();
    await receive(p.apiKey, [['2027-01-15T10:00:00Z', [ev('revived', EXPIRED), ev('revived', EXPIRED)]]]);
    // An ingestion of a new event holds the journey, as lockJourneys does, and makes it live.
    const writer = await db.pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`SELECT 1 FROM journeys WHERE project_id = $1 AND id = 'revived' FOR UPDATE`, [p.projectId]);
      const sweeping = sweep().run();
      // Past the drop's lock timeout (500 ms), while the row batch waits for the journey too.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await writer.query(`UPDATE journeys SET last_event_at = $2 WHERE project_id = $1 AND id = 'revived'`, [p.projectId, new Date(LIVE)]);
      await writer.query('COMMIT');
      expect(await sweeping).toMatchObject({ outcome: 'completed', journeysDeleted: 0 });
    } finally {
      writer.release();
    }
    expect(await partitionNames()).toContain('events_p20270115');
    expect(await countTree(db.pool, p.projectId, 'revived')).toMatchObject({ journeys: 1, events: 2 });
    expect(await eventIdRows(p.projectId)).toBe(2);
  });
});

describe('erasure and range deletion over day partitions', () => {
  it('erasure deletes a journey whose events lie in several partitions, with its audit row', async () => {
    const p = await project();
    const events = (day: string): TestEvent[] => [{ journeyId: 'spread', entityId: 'erase-me@example.com', timestamp: LIVE }, { ...ev('kept', LIVE) }].map((e) => ({ ...e, id: `${e.journeyId}-${day}` }));
    await receive(p.apiKey, [
      ['2027-01-10T10:00:00Z', events('10')],
      ['2027-01-11T10:00:00Z', events('11')],
    ]);
    const response = await apps.at(-1)!.inject({
      method: 'POST',
      url: '/v1/erasures',
      headers: { ...admin(p.projectId), 'content-type': 'application/json' },
      payload: JSON.stringify({ value: 'erase-me@example.com' }),
    });
    expect(response.json()).toEqual({ data: { deletedJourneys: 1, deletedEvents: 2, complete: true } });
    expect(await countTree(db.pool, p.projectId, 'spread')).toEqual({ journeys: 0, events: 0, aliases: 0, tokens: 0, replayRuns: 0 });
    expect(await countTree(db.pool, p.projectId, 'kept')).toMatchObject({ journeys: 1, events: 2 });
    expect(await eventIdRows(p.projectId)).toBe(2);
    const [row] = await auditRows(db.pool, p.projectId, 'erasure.completed');
    expect(row!.details).toMatchObject({ deletedJourneys: 1, deletedEvents: 2, complete: true });
  });

  it('delete:range deletes a journey whose events lie in several partitions, with its audit row', async () => {
    const p = await project();
    await receive(p.apiKey, [
      ['2027-01-12T10:00:00Z', [ev('old', '2026-05-01T00:00:00.000Z'), ev('young', LIVE)]],
      ['2027-01-13T10:00:00Z', [ev('old', '2026-05-02T00:00:00.000Z')]],
    ]);
    const run = await runTestCli(['delete:range', p.slug, 'production', '--before', '2026-06-01'], { pool: db.pool, keyring });
    expect(run.code).toBe(0);
    expect(run.out).toEqual(['deleted 1 journeys (2 events) in 1 batches']);
    expect(await countTree(db.pool, p.projectId, 'old')).toEqual({ journeys: 0, events: 0, aliases: 0, tokens: 0, replayRuns: 0 });
    expect(await journeyIds(db.pool, p.projectId)).toEqual(['young']);
    expect(await eventIdRows(p.projectId)).toBe(1);
    expect((await auditRows(db.pool, p.projectId, 'range.deleted')).map((r) => r.details)).toEqual([
      expect.objectContaining({ deletedJourneys: 1, complete: true }),
    ]);
  });
});
