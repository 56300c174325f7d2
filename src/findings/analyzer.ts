// The background analyzer: one instance at a time across every process on the database (a
// session advisory lock; when its holder dies PostgreSQL releases it and another instance takes
// it over at its next try). It takes the journeys ingestion marked, oldest mark first, in
// batches, computes their findings and stores them with the mark cleared in one transaction:
// a crash before the commit leaves the marks for the next holder, a commit leaves nothing to
// redo, and an event stored meanwhile marks its journey again (docs/findings.md).

import type { Logger } from 'pino';
import { ADVISORY_LOCK_KEYS, trySessionLock, type HeldLock } from '../db/advisory-lock.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { MAX_FORENSICS_EVENTS } from '../forensics/limits.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { readJourneysPayloads, type JourneyPayloads } from '../query/journey-payloads.ts';
import { analyzeJourney } from './analyze.ts';
import { selectExpectation, type StoredExpectation } from './expectations-sql.ts';
import { storeAnalyses, type AnalysedJourney } from './findings-sql.ts';
import { markDueJourneys, selectPendingJourneys } from './pending-sql.ts';
import { ANALYZER_BATCH_SIZE, ANALYZER_IDLE_MS, ANALYZER_LOCK_RETRY_MS } from './limits.ts';
import type { Pacer } from './pacing.ts';

export { analyzerPacer } from './pacing.ts';

export interface AnalyzerDeps {
  pool: Pool;
  logger: Pick<Logger, 'info' | 'warn'>;
  metrics: Pick<Metrics, 'findingsAnalysed' | 'findingsStored' | 'analyzerBatches'>;
  now?: () => number;
  batchSize?: number;
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
  stop(): Promise<void>;
}

export function startAnalyzer(deps: AnalyzerDeps): Analyzer {
  let lock: HeldLock | null = null;
  let stopping = false;
  let running: Promise<number> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const now = deps.now ?? Date.now;

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
      const done = await analyseBatch(deps, now);
      cleared += done.cleared;
      if (done.selected < (deps.batchSize ?? ANALYZER_BATCH_SIZE)) break;
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

/** One batch: read and analyse outside any transaction, then store in one short transaction. */
async function analyseBatch(deps: AnalyzerDeps, now: () => number): Promise<{ selected: number; cleared: number }> {
  const pending = await selectPendingJourneys(deps.pool, deps.batchSize ?? ANALYZER_BATCH_SIZE);
  if (pending.length === 0) return { selected: 0, cleared: 0 };
  const expectations = new Map<string, StoredExpectation | null>();
  const analysed: AnalysedJourney[] = [];
  // One read per project of the batch (most batches hold one project).
  const projects = [...new Set(pending.map((journey) => journey.projectId))];
  const payloads = new Map<string, JourneyPayloads>();
  for (const projectId of projects) {
    const ids = pending.filter((journey) => journey.projectId === projectId).map((journey) => journey.id);
    for (const [id, read] of await readJourneysPayloads(deps.pool, projectId, ids, MAX_FORENSICS_EVENTS)) payloads.set(`${projectId}\u0000${id}`, read);
  }
  for (const journey of pending) {
    const read = payloads.get(`${journey.projectId}\u0000${journey.id}`);
    if (read === undefined) continue;
    const key = `${journey.projectId}\u0000${journey.entityType}`;
    if (!expectations.has(key)) expectations.set(key, await selectExpectation(deps.pool, journey.projectId, journey.entityType));
    const findings = await analyzeJourney({ payloads: read, startedAtMs: journey.startedAt.getTime(), expectation: expectations.get(key) ?? null, nowMs: now() });
    analysed.push({ journey, findings });
  }
  await deps.beforeStore?.(analysed);
  const cleared = await withTransaction(deps.pool, async (client) => {
    // Findings are derived data: a commit the database loses in a crash loses the cleared marks
    // with it, and those journeys are analysed again. So the analyzer does not wait for its
    // commits to reach the disk, and adds no flushes of its own to ingestion's.
    await client.query('SET LOCAL synchronous_commit = off');
    return storeAnalyses(client, analysed, new Date(now()));
  });
  deps.metrics.findingsAnalysed.inc(analysed.length);
  // Counted per kind, then added once per kind: a labelled increment per finding showed in the analyzer's profile.
  const byKind = new Map<string, number>();
  for (const { findings } of analysed) for (const finding of findings) byKind.set(finding.kind, (byKind.get(finding.kind) ?? 0) + 1);
  for (const [kind, count] of byKind) deps.metrics.findingsStored.inc({ kind }, count);
  deps.metrics.analyzerBatches.inc();
  return { selected: pending.length, cleared };
}
