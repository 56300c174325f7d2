// The background analyzer: one instance at a time across every process on the database (a
// session advisory lock; when its holder dies PostgreSQL releases it and another instance takes
// it over at its next try). It takes the journeys ingestion marked, oldest mark first, in
// batches, computes their findings and stores them with the mark cleared in one transaction:
// a crash before the commit leaves the marks for the next holder, a commit leaves nothing to
// redo, and an event stored meanwhile marks its journey again (docs/findings.md).

import type { Logger } from 'pino';
import { ADVISORY_LOCK_KEYS, trySessionLock, type HeldLock } from '../db/advisory-lock.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { analyseBatch } from './analyse-batch.ts';
import type { AnalysedJourney } from './findings-sql.ts';
import { markDueJourneys } from './pending-sql.ts';
import { ANALYZER_BATCH_SIZE, ANALYZER_IDLE_MS, ANALYZER_LOCK_RETRY_MS } from './limits.ts';
import type { Pacer } from './pacing.ts';
import type { ReadCounts } from './walk-read.ts';
import { stateHasher } from './walk-state.ts';

export { analyzerPacer } from './pacing.ts';

export interface AnalyzerDeps {
  pool: Pool;
  /** Keys the hashes the walk's state keeps (walk-state.ts). */
  keyring: Keyring;
  logger: Pick<Logger, 'info' | 'warn'>;
  metrics: Pick<Metrics, 'findingsAnalysed' | 'findingsStored' | 'analyzerBatches'>;
  now?: () => number;
  batchSize?: number;
  /** Events walked per journey per batch (ANALYZER_JOURNEY_EVENTS). */
  journeyEvents?: number;
  idleMs?: number;
  lockRetryMs?: number;
  /** Waits between two batches of a pass while other work uses the database (pacing.ts); none: full speed. */
  pacer?: Pacer;
  /** Called after each batch's findings are computed, before they are stored (tests: a crash point). */
  beforeStore?: (batch: AnalysedJourney[]) => Promise<void>;
}

export interface Analyzer {
  /** Analyses every pending journey now, if this instance holds (or can take) the lock; returns journeys cleared. */
  drain(): Promise<number>;
  /** True while this instance holds the analyzer lock. */
  holdsLock(): boolean;
  /** Rows read so far: events after a walk's position, and events read again for a hand-off (tests, benchmarks). */
  readCounts(): ReadCounts;
  stop(): Promise<void>;
}

export function startAnalyzer(deps: AnalyzerDeps): Analyzer {
  let lock: HeldLock | null = null;
  let stopping = false;
  let running: Promise<number> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const now = deps.now ?? Date.now;
  const hasher = stateHasher(deps.keyring);
  const counts: ReadCounts = { events: 0, carried: 0 };

  const acquire = async (): Promise<boolean> => {
    if (lock !== null && (await lock.isHeld())) return true;
    await lock?.release();
    lock = await trySessionLock(deps.pool, ADVISORY_LOCK_KEYS.findings);
    return lock !== null;
  };

  const pass = async (): Promise<number> => {
    if (stopping || !(await acquire())) return 0;
    let cleared = 0;
    await markDueJourneys(deps.pool, new Date(now()), deps.batchSize ?? ANALYZER_BATCH_SIZE);
    for (;;) {
      if (stopping || !(await lock!.isHeld())) break;
      const batchStarted = performance.now();
      const done = await analyseBatch(deps, now, hasher, counts);
      cleared += done.cleared;
      // A journey with more to walk went to the back of the queue: go on with it (and the others).
      if (done.selected < (deps.batchSize ?? ANALYZER_BATCH_SIZE) && done.unfinished === 0) break;
      await deps.pacer?.pace(performance.now() - batchStarted);
    }
    return cleared;
  };

  // A drain asked for while a pass runs starts another after it: events stored during that pass
  // may have been marked after it read the pending journeys.
  const drain = (): Promise<number> => {
    const next: Promise<number> = (running ?? Promise.resolve(0)).catch(() => 0).then(pass);
    running = next;
    void next.finally(() => {
      if (running === next) running = null;
    }).catch(() => undefined);
    return next;
  };

  const schedule = (delayMs: number) => {
    if (stopping) return;
    timer = setTimeout(() => {
      timer = null;
      drain()
        .catch((error: unknown) => {
          // Only the class: database error text may quote values.
          deps.logger.warn({ err: { type: error instanceof Error ? error.name : 'error' } }, 'findings analysis failed');
        })
        .finally(() => schedule(lock !== null ? (deps.idleMs ?? ANALYZER_IDLE_MS) : (deps.lockRetryMs ?? ANALYZER_LOCK_RETRY_MS)));
    }, delayMs);
    timer.unref();
  };
  schedule(0);

  return {
    drain,
    holdsLock: () => lock !== null,
    readCounts: () => ({ ...counts }),
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running?.catch(() => undefined);
      await lock?.release();
      lock = null;
    },
  };
}
