import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { withTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { RETENTION_LOCK_KEY, trySessionLock, type HeldLock } from '../db/advisory-lock.ts';
import { deleteByLastEventBatch, liftStatementTimeout, listRetentionEnvironments } from './deletion-sql.ts';
import { DELETION_BATCH_SIZE } from './limits.ts';
import { AUDIT_TRAIL_TABLES, deleteOldTrailBatch } from './audit-retention-sql.ts';
import { droppablePartitionCandidates, dropExpiredPartition } from './partition-drop.ts';
import { anyExpiredRowsDeleted, noExpiredRowsDeleted, sweepExpiredRows, type ExpiredRowsDeleted, type SessionLimits } from './expired-rows.ts';

/**
 * The retention sweep (interface spec section 8): every environment's journeys whose last event
 * is older than its retention_days are deleted in batches of 500, each its own transaction
 * without statement timeout, under the advisory lock that `delete:range` takes too, so two
 * server processes (or a sweep and a range deletion) never delete by age at the same time.
 * Before and after the environments, it drops the day partitions of events whose journeys have
 * all expired (partition-drop.ts): before, so that a partition that expired as a whole while the
 * service was down goes without deleting its rows one by one; after, so that a partition the
 * batches just emptied goes at once rather than waiting for vacuum. Last come the audit trails
 * and the rows that only ever expire (expired-rows.ts).
 */

export type SweepOutcome = 'completed' | 'locked' | 'stopped_early' | 'failed';

export interface SweepResult {
  outcome: SweepOutcome;
  journeysDeleted: number;
  batches: number;
  environmentsExamined: number;
  /** Day partitions of events dropped whole (their journeys are counted in journeysDeleted). */
  partitionsDropped: number;
  /** Audit, settings-history and account rows older than AUDIT_RETENTION_DAYS. */
  auditRowsDeleted: number;
  /** Spent throttle rows, ended sessions, spent links, finished alert notifications and their log. */
  expiredRowsDeleted: ExpiredRowsDeleted;
  durationMs: number;
}

export interface RetentionSweeperDeps {
  pool: Pool;
  logger: Pick<Logger, 'info' | 'warn'>;
  metrics: Pick<Metrics, 'retentionRuns' | 'retentionDeleted' | 'retentionLastSuccess'>;
  /** Time between the end of one sweep and the start of the next (RETENTION_SWEEP_INTERVAL_MS). */
  intervalMs: number;
  /** AUDIT_RETENTION_DAYS: the trails' rows older than this go too; 0 or omitted keeps them. */
  auditRetentionDays?: number;
  /** SESSION_IDLE_MINUTES and SESSION_MAX_HOURS: ended sessions go some days later; omitted keeps them. */
  sessionLimits?: SessionLimits;
  /** Milliseconds since the epoch: the retention cut-off is measured from it. */
  now?: () => number;
  /** Delay before the first sweep; defaults to the interval, at most one minute. */
  firstRunDelayMs?: number;
  /** Tests only: journeys per batch. */
  batchSize?: number;
  /** Tests only: runs inside each batch's transaction before it deletes; a throw fails the sweep. */
  beforeBatch?: (index: number, client: PoolClient) => Promise<void>;
}

export interface RetentionSweeper {
  /** Runs one sweep now (or joins the one already running in this process); never rejects. */
  runOnce(): Promise<SweepResult>;
  /** No new sweep starts; resolves once a running sweep has ended its current batch. */
  stop(): Promise<void>;
}

/** A process restarted more often than the interval must still sweep, so the first run comes soon. */
const MAX_FIRST_RUN_DELAY_MS = 60_000;
const DAY_MS = 86_400_000;

class LockLostError extends Error {
  override name = 'LockLostError';
}

interface Tally {
  journeysDeleted: number;
  batches: number;
  environmentsExamined: number;
  partitionsDropped: number;
  auditRowsDeleted: number;
  expiredRowsDeleted: ExpiredRowsDeleted;
}

export function startRetentionSweeper(deps: RetentionSweeperDeps): RetentionSweeper {
  let stopping = false;
  let running: Promise<SweepResult> | null = null;
  let timer: NodeJS.Timeout | null = null;

  const runOnce = (): Promise<SweepResult> => {
    // After stop() nothing starts and nothing is counted: the process is on its way out.
    if (stopping) return Promise.resolve({ outcome: 'stopped_early', ...emptyTally(), durationMs: 0 });
    running ??= sweep(deps, () => stopping).finally(() => {
      running = null;
    });
    return running;
  };
  const schedule = (delayMs: number) => {
    if (stopping) return;
    timer = setTimeout(() => {
      timer = null;
      void runOnce().finally(() => schedule(deps.intervalMs));
    }, delayMs);
    // The sweep never keeps the process alive on its own.
    timer.unref();
  };
  schedule(deps.firstRunDelayMs ?? Math.min(deps.intervalMs, MAX_FIRST_RUN_DELAY_MS));

  return {
    runOnce,
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}

async function sweep(deps: RetentionSweeperDeps, shouldStop: () => boolean): Promise<SweepResult> {
  const started = performance.now();
  const tally = emptyTally();
  let outcome: SweepOutcome;
  let lock: HeldLock | null = null;
  try {
    lock = await trySessionLock(deps.pool, RETENTION_LOCK_KEY);
    outcome = lock === null ? 'locked' : await sweepAll(deps, lock, shouldStop, tally);
    if (outcome === 'completed' && lock !== null) outcome = await sweepAuditTrails(deps, lock, shouldStop, tally);
    if (outcome === 'completed' && lock !== null) outcome = await sweepExpired(deps, lock, shouldStop, tally);
  } catch (error) {
    outcome = 'failed';
    // Only the class: database error text may quote values.
    deps.logger.warn({ err: { type: error instanceof Error ? error.name : 'error' }, ...tally }, 'retention sweep failed');
  } finally {
    await lock?.release();
  }
  const result: SweepResult = { outcome, ...tally, durationMs: Math.round(performance.now() - started) };
  deps.metrics.retentionRuns.inc({ outcome });
  if (outcome === 'completed') deps.metrics.retentionLastSuccess.set((deps.now ?? Date.now)() / 1000);
  if (result.journeysDeleted > 0 || result.partitionsDropped > 0 || result.auditRowsDeleted > 0 || anyExpiredRowsDeleted(result.expiredRowsDeleted)) {
    const { journeysDeleted, batches, environmentsExamined, partitionsDropped, auditRowsDeleted, expiredRowsDeleted, durationMs } = result;
    deps.logger.info({ outcome, journeysDeleted, batches, environmentsExamined, partitionsDropped, auditRowsDeleted, expiredRowsDeleted, durationMs }, 'retention sweep');
  }
  return result;
}

function emptyTally(): Tally {
  return { journeysDeleted: 0, batches: 0, environmentsExamined: 0, partitionsDropped: 0, auditRowsDeleted: 0, expiredRowsDeleted: noExpiredRowsDeleted() };
}

/** Rows that only ever expire, whatever AUDIT_RETENTION_DAYS says: they are no record of anything. */
async function sweepExpired(deps: RetentionSweeperDeps, lock: HeldLock, shouldStop: () => boolean, tally: Tally): Promise<SweepOutcome> {
  const proceed = async () => {
    if (shouldStop()) return false;
    if (!(await lock.isHeld())) throw new LockLostError('the retention lock was lost');
    return true;
  };
  const sweep = { pool: deps.pool, nowMs: (deps.now ?? Date.now)(), limit: deps.batchSize ?? DELETION_BATCH_SIZE, proceed };
  return sweepExpiredRows(deps.sessionLimits === undefined ? sweep : { ...sweep, sessionLimits: deps.sessionLimits }, tally.expiredRowsDeleted);
}

async function sweepAll(deps: RetentionSweeperDeps, lock: HeldLock, shouldStop: () => boolean, tally: Tally): Promise<SweepOutcome> {
  const first = await dropExpiredPartitions(deps, lock, shouldStop, tally);
  if (first !== 'completed') return first;
  const rows = await sweepEnvironments(deps, lock, shouldStop, tally);
  if (rows !== 'completed') return rows;
  return dropExpiredPartitions(deps, lock, shouldStop, tally);
}

/** Each candidate partition in a transaction of its own, oldest first; one that cannot go yet stays. */
async function dropExpiredPartitions(
  deps: RetentionSweeperDeps,
  lock: HeldLock,
  shouldStop: () => boolean,
  tally: Tally,
): Promise<SweepOutcome> {
  const now = new Date((deps.now ?? Date.now)());
  const limit = deps.batchSize ?? DELETION_BATCH_SIZE;
  for (const partition of await droppablePartitionCandidates(deps.pool, now.getTime())) {
    if (shouldStop()) return 'stopped_early';
    if (!(await lock.isHeld())) throw new LockLostError('the retention lock was lost');
    const result = await withTransaction(deps.pool, async (client) => {
      await liftStatementTimeout(client);
      return dropExpiredPartition(client, partition.name, now, limit);
    });
    if (!result.dropped) continue;
    tally.batches++;
    tally.partitionsDropped++;
    tally.journeysDeleted += result.journeys;
    deps.metrics.retentionDeleted.inc(result.journeys);
  }
  return 'completed';
}

async function sweepEnvironments(
  deps: RetentionSweeperDeps,
  lock: HeldLock,
  shouldStop: () => boolean,
  tally: Tally,
): Promise<SweepOutcome> {
  const nowMs = (deps.now ?? Date.now)();
  const limit = deps.batchSize ?? DELETION_BATCH_SIZE;
  for (const environment of await listRetentionEnvironments(deps.pool)) {
    tally.environmentsExamined++;
    const cutoff = new Date(nowMs - environment.retentionDays * DAY_MS);
    const scope = { projectId: environment.projectId, environmentId: environment.id };
    for (;;) {
      if (shouldStop()) return 'stopped_early';
      if (!(await lock.isHeld())) throw new LockLostError('the retention lock was lost');
      const index = tally.batches;
      const deleted = await withTransaction(deps.pool, async (client) => {
        await liftStatementTimeout(client);
        await deps.beforeBatch?.(index, client);
        return deleteByLastEventBatch(client, scope, { after: null, before: cutoff }, null, limit);
      });
      tally.batches++;
      tally.journeysDeleted += deleted.journeys;
      deps.metrics.retentionDeleted.inc(deleted.journeys);
      if (deleted.candidates < limit) break;
    }
  }
  return 'completed';
}

/**
 * AUDIT_RETENTION_DAYS: audit, settings-history and account rows older than the cut-off, in
 * batches of their own transactions, under the same lock. 0 keeps every row.
 */
async function sweepAuditTrails(deps: RetentionSweeperDeps, lock: HeldLock, shouldStop: () => boolean, tally: Tally): Promise<SweepOutcome> {
  const days = deps.auditRetentionDays ?? 0;
  if (days <= 0) return 'completed';
  const cutoff = new Date((deps.now ?? Date.now)() - days * DAY_MS);
  const limit = deps.batchSize ?? DELETION_BATCH_SIZE;
  for (const table of AUDIT_TRAIL_TABLES) {
    for (;;) {
      if (shouldStop()) return 'stopped_early';
      if (!(await lock.isHeld())) throw new LockLostError('the retention lock was lost');
      const deleted = await withTransaction(deps.pool, async (client) => {
        await liftStatementTimeout(client);
        return deleteOldTrailBatch(client, table, cutoff, limit);
      });
      tally.auditRowsDeleted += deleted;
      if (deleted < limit) break;
    }
  }
  return 'completed';
}
