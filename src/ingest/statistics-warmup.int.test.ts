import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { createStatisticsWarmup } from './statistics-warmup.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

async function analyzeCount(): Promise<number> {
  const result = await db.pool.query<{ n: number }>(
    "SELECT (analyze_count + autoanalyze_count)::int AS n FROM pg_stat_user_tables WHERE relname = 'journeys'",
  );
  return result.rows[0]?.n ?? 0;
}

async function waitForCount(count: number): Promise<void> {
  for (let i = 0; i < 50 && (await analyzeCount()) < count; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await analyzeCount()).toBe(count);
}

async function analyzed(): Promise<boolean> {
  const result = await db.pool.query<{ analyzed: boolean }>(
    "SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'journeys'",
  );
  return result.rows[0]?.analyzed ?? false;
}

describe('statistics warm-up of a fresh database', () => {
  it('analyzes the ingestion tables once the threshold of stored events is passed, and checks at most twice more', async () => {
    const warmup = createStatisticsWarmup(db.pool, pino({ level: 'silent' }), 10);
    warmup.record(9);
    await warmup.settled();
    expect(await analyzed()).toBe(false);
    warmup.record(1);
    await warmup.settled();
    // The statistics collector may publish a moment after ANALYZE returns.
    for (let i = 0; i < 50 && !(await analyzed()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await analyzed()).toBe(true);
    const count = await analyzeCount();
    // Past the last two checkpoints at once: one more check, and the table still counts no journey.
    warmup.record(1000);
    await warmup.settled();
    await waitForCount(count + 1);
    warmup.record(1_000_000);
    await warmup.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await analyzeCount()).toBe(count + 1);
  });

  it('analyzes a database whose statistics were taken while journeys was empty', async () => {
    // The first test's ANALYZE counted no journey: plans made from it would scan every journey.
    const before = await analyzeCount();
    const warmup = createStatisticsWarmup(db.pool, pino({ level: 'silent' }), 1);
    warmup.record(1);
    await warmup.settled();
    for (let i = 0; i < 50 && (await analyzeCount()) === before; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await analyzeCount()).toBe(before + 1);
  });

  it('leaves alone a database whose statistics count a hundred journeys or more', async () => {
    const project = await seedProject(db.pool, createKeyring({ current: TEST_ENCRYPTION_KEY }), 'warmup');
    await db.pool.query(
      `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, status, event_count, started_at, last_event_at)
       SELECT $1, 'jrn-' || n, (SELECT id FROM environments WHERE project_id = $1 LIMIT 1), 'order', 'x', 'active', 1, now(), now()
         FROM generate_series(1, 150) n`,
      [project.projectId],
    );
    await db.pool.query('ANALYZE journeys');
    for (let i = 0; i < 50 && (await analyzeCount()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const before = await analyzeCount();
    const warmup = createStatisticsWarmup(db.pool, pino({ level: 'silent' }), 1);
    warmup.record(1);
    await warmup.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await analyzeCount()).toBe(before);
  });

  it('analyzes again at a later checkpoint a table grown past four times the journeys its statistics count', async () => {
    const project = await seedProject(db.pool, createKeyring({ current: TEST_ENCRYPTION_KEY }), 'warmup-growth');
    const environment = (await db.pool.query<{ id: string }>('SELECT id FROM environments WHERE project_id = $1 LIMIT 1', [project.projectId])).rows[0]!.id;
    const addJourneys = (from: number, to: number) =>
      db.pool.query(
        `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, status, event_count, started_at, last_event_at)
         SELECT $1, 'jrn-' || n, $2, 'order', 'x', 'active', 1, now(), now() FROM generate_series($3::int, $4::int) n`,
        [project.projectId, environment, from, to],
      );
    const live = async () =>
      Number((await db.pool.query("SELECT n_live_tup AS n FROM pg_stat_user_tables WHERE relname = 'journeys'")).rows[0]!.n);
    const counted = async () => Number((await db.pool.query("SELECT reltuples AS n FROM pg_class WHERE relname = 'journeys'")).rows[0]!.n);
    const warmup = createStatisticsWarmup(db.pool, pino({ level: 'silent' }), 1);
    // At the first checkpoint the statistics count the table as it is: nothing to do.
    await db.pool.query('ANALYZE journeys');
    const total = await counted();
    const before = await analyzeCount();
    warmup.record(1);
    await warmup.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await analyzeCount()).toBe(before);
    // Grown past four times: the next checkpoint (ten events) analyzes.
    await addJourneys(1000, 1000 + 4 * total);
    for (let i = 0; i < 50 && (await live()) <= 4 * total; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    warmup.record(9);
    await warmup.settled();
    await waitForCount(before + 1);
    expect(await counted()).toBeGreaterThan(4 * total);
  });
});
