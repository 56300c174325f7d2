import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('leaves a database that was ever analyzed alone', async () => {
    const before = await analyzeCount();
    const warmup = createStatisticsWarmup(db.pool, pino({ level: 'silent' }), 1);
    warmup.record(1);
    await warmup.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await analyzeCount()).toBe(before);
  });
});
