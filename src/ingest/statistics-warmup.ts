import type { Logger } from 'pino';
import type { Pool } from '../db/pool.ts';

/** Events this process stores before it first checks the ingestion tables' statistics. */
export const WARMUP_EVENT_THRESHOLD = 500;
/** It checks again at ten and a hundred times as many: a new database grows fastest at first. */
const CHECKPOINT_FACTORS = [1, 10, 100];
/** Statistics counting fewer journeys describe a table too small for the plans they lead to. */
const MIN_COUNTED_JOURNEYS = 100;
/** Statistics counting under a quarter of the journeys the table holds are as stale. */
const MAX_GROWTH = 4;

export interface StatisticsWarmup {
  /** Called with the number of events a real send stored. */
  record(storedEvents: number): void;
  /** Resolves when a started warm-up has finished (tests and shutdown). */
  settled(): Promise<void>;
}

/**
 * PostgreSQL plans the foreign-key checks into `journeys` once per connection, and the batch's
 * lock of its journeys once per connection too (a prepared statement). Planned while the table
 * is empty and never analyzed, or analyzed while it was (nearly) empty, they use a plan that reads
 * every journey of the project, until autovacuum next analyzes the table (a minute or more later).
 * On a fresh database each batch then grows slower as journeys accumulate. So once this process
 * has stored a few hundred events, it analyzes the ingestion tables itself if their statistics
 * count fewer than a hundred journeys, and again after ten and a hundred times as many events if
 * the table has meanwhile grown past four times what they count: ANALYZE invalidates the cached
 * plans, and the next ones use the primary key.
 */
export function createStatisticsWarmup(pool: Pool, logger: Logger, threshold = WARMUP_EVENT_THRESHOLD): StatisticsWarmup {
  let stored = 0;
  let checkpoint = 0;
  let running: Promise<void> | null = null;
  return {
    record(storedEvents) {
      stored += storedEvents;
      // Checkpoints passed at once (a large batch) make one check.
      const reached = CHECKPOINT_FACTORS.filter((factor) => stored >= threshold * factor).length;
      if (running !== null || reached <= checkpoint) return;
      checkpoint = reached;
      running = (async () => {
        // reltuples is -1 before the first ANALYZE, and what the last one counted after it;
        // n_live_tup is what the table holds now, as the statistics system last heard.
        const result = await pool.query<{ counted: number; live: number }>(
          `SELECT c.reltuples AS counted, COALESCE(s.n_live_tup, 0) AS live
             FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = to_regclass('journeys')`,
        );
        const counted = Number(result.rows[0]?.counted);
        const live = Number(result.rows[0]?.live ?? 0);
        if (!(counted < MIN_COUNTED_JOURNEYS || live > MAX_GROWTH * counted)) return;
        await pool.query('ANALYZE journeys, events, journey_aliases, search_tokens');
        logger.info({ counted, live }, 'gathered statistics of the ingestion tables');
      })()
        .catch(() => {
          // Best effort: autovacuum gathers them later anyway.
        })
        .finally(() => {
          running = null;
        });
    },
    async settled() {
      await running;
    },
  };
}
