// Upkeep of the daily partitions of events (migration 0017). Each day of received_at needs its
// partition before the first event of that day arrives; the server creates the days ahead at
// start and every few hours, so a server that stays up never writes into the default
// partition, and one that was down catches up as it starts. A row that did land in the default
// partition (a day not yet created, a clock far off) moves into its day's partition when the
// day is created; until then it is stored and read like any other.

import type { Logger } from 'pino';
import { ADVISORY_LOCK_KEYS } from './advisory-lock.ts';
import { withTransaction, type Pool, type Queryable } from './pool.ts';

/** Days created ahead of today (UTC): a week of server clock drift or upkeep failures. */
export const EVENT_PARTITION_DAYS_AHEAD = 7;
/** Time between two upkeep runs: several a day, so one failed run costs nothing. */
export const EVENT_PARTITION_UPKEEP_INTERVAL_MS = 6 * 3_600_000;
/**
 * Creating a partition briefly takes a strong lock on events; waiting longer than this behind a
 * long read would stall ingestion queued behind the upkeep, so it gives up and tries next run.
 */
const UPKEEP_LOCK_TIMEOUT = '2s';
const DAY_MS = 86_400_000;

export interface EventPartition {
  name: string;
  /** null: unbounded below (events_history). */
  lowerBound: Date | null;
  /** null: unbounded above. */
  upperBound: Date | null;
  isDefault: boolean;
}

export async function listEventPartitions(db: Queryable): Promise<EventPartition[]> {
  const result = await db.query<{ name: string; lower_bound: Date | null; upper_bound: Date | null; is_default: boolean }>(
    'SELECT name, lower_bound, upper_bound, is_default FROM jtrace_event_partitions() ORDER BY upper_bound NULLS LAST, name',
  );
  return result.rows.map((row) => ({
    name: row.name,
    lowerBound: row.lower_bound,
    upperBound: row.upper_bound,
    isDefault: row.is_default,
  }));
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export type UpkeepOutcome = { outcome: 'completed'; created: number } | { outcome: 'locked' };

/**
 * Creates the missing partitions from yesterday to EVENT_PARTITION_DAYS_AHEAD days ahead, in one
 * transaction under a transaction advisory lock (another process doing it: 'locked').
 */
export async function ensureEventPartitions(pool: Pool, nowMs: number, daysAhead = EVENT_PARTITION_DAYS_AHEAD): Promise<UpkeepOutcome> {
  return withTransaction(pool, async (client) => {
    const lock = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
      ADVISORY_LOCK_KEYS.eventPartitions,
    ]);
    if (!lock.rows[0]!.locked) return { outcome: 'locked' };
    await client.query(`SET LOCAL lock_timeout = '${UPKEEP_LOCK_TIMEOUT}'`);
    await client.query('SET LOCAL statement_timeout = 0');
    const result = await client.query<{ created: number }>('SELECT jtrace_ensure_event_partitions($1::date, $2::date) AS created', [
      utcDay(nowMs - DAY_MS),
      utcDay(nowMs + daysAhead * DAY_MS),
    ]);
    return { outcome: 'completed', created: result.rows[0]!.created };
  });
}

export interface PartitionUpkeep {
  /** Resolves once the first run (started at once) has ended, whatever its outcome. */
  firstRun: Promise<void>;
  stop(): Promise<void>;
}

/** Runs the upkeep now and then every EVENT_PARTITION_UPKEEP_INTERVAL_MS; failures are logged, never thrown. */
export function startEventPartitionUpkeep(deps: {
  pool: Pool;
  logger: Pick<Logger, 'info' | 'warn'>;
  now?: () => number;
  intervalMs?: number;
}): PartitionUpkeep {
  let timer: NodeJS.Timeout | null = null;
  let stopping = false;
  let running: Promise<void> = Promise.resolve();
  const runOnce = async () => {
    try {
      const result = await ensureEventPartitions(deps.pool, (deps.now ?? Date.now)());
      if (result.outcome === 'completed' && result.created > 0) deps.logger.info({ created: result.created }, 'event partitions created');
    } catch (error) {
      // Only the class and code: database error text may quote values.
      const code = (error as { code?: unknown }).code;
      deps.logger.warn({ err: { type: error instanceof Error ? error.name : 'error', code: typeof code === 'string' ? code : undefined } }, 'event partition upkeep failed');
    }
  };
  const schedule = () => {
    if (stopping) return;
    timer = setTimeout(() => {
      running = runOnce().finally(schedule);
    }, deps.intervalMs ?? EVENT_PARTITION_UPKEEP_INTERVAL_MS);
    timer.unref();
  };
  running = runOnce().finally(schedule);
  const firstRun = running;
  return {
    firstRun,
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
