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

async function analyzed(): Promise<boolean> {
  const result = await db.pool.query<{ analyzed: boolean }>(
    "SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'journeys'",
  );
  return result.rows[0]?.analyzed ?? false;
}

describe('statistics warm-up of a fresh database', () => {
  it('analyzes the ingestion tables once the threshold of stored events is passed, and only once', async () => {
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
    warmup.record(1000);
    await warmup.settled();
    expect(await analyzeCount()).toBe(count);
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
});
