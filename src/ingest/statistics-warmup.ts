import type { Logger } from 'pino';
import type { Pool } from '../db/pool.ts';

/** Events this process stores before it checks whether the ingestion tables were ever analyzed. */
export const WARMUP_EVENT_THRESHOLD = 500;
/** Statistics counting fewer journeys describe a table too small for the plans they lead to. */
const MIN_COUNTED_JOURNEYS = 100;

export interface StatisticsWarmup {
  /** Called with the number of events a real send stored. */
  record(storedEvents: number): void;
  /** Resolves when a started warm-up has finished (tests and shutdown). */
  settled(): Promise<void>;
}

/**
 * PostgreSQL plans the foreign-key checks into `journeys` once per connection. Planned while the
 * table is empty and never analyzed, or analyzed while it was (nearly) empty, they use a plan that
 * reads every journey of the project, until autovacuum next analyzes the table (a minute or more
 * later). On a fresh database each batch then grows slower as journeys accumulate. So once this
 * process has stored a few hundred events, it analyzes the ingestion tables itself if their
 * statistics count fewer than a hundred journeys: ANALYZE invalidates the cached plans, and the
 * next checks use the primary key.
 */
export function createStatisticsWarmup(pool: Pool, logger: Logger, threshold = WARMUP_EVENT_THRESHOLD): StatisticsWarmup {
  let stored = 0;
  let running: Promise<void> | null = null;
  return {
    record(storedEvents) {
      if (running !== null) return;
      stored += storedEvents;
      if (stored < threshold) return;
      running = (async () => {
        // reltuples is -1 before the first ANALYZE, and what the last one counted after it.
        const result = await pool.query<{ counted: number }>(`SELECT reltuples AS counted FROM pg_class WHERE oid = to_regclass('journeys')`);
        if (!(Number(result.rows[0]?.counted) < MIN_COUNTED_JOURNEYS)) return;
        await pool.query('ANALYZE journeys, events, journey_aliases, search_tokens');
        logger.info('gathered first statistics of the ingestion tables');
      })().catch(() => {
        // Best effort: autovacuum gathers them later anyway.
      });
    },
    async settled() {
      await running;
    },
  };
}
