// Pacing of the findings analyzer (docs/findings.md, "Pacing"). Analysing a backlog at full
// speed takes a core and a database backend for as long as the backlog lasts; on a small
// machine that competes with ingestion and makes reads several times slower. So between two
// batches the analyzer asks whether anything else is using the database and, while something
// is, pauses in proportion to its own last batch: it then works at most `busyShare` of the wall
// time. When nothing else runs it does not pause and catches up at full speed. The share is also
// its minimum: however busy the database, the analyzer keeps that share, so its lag stays bounded.
//
// The busy signal comes from PostgreSQL (pg_stat_activity), not from this process: the analyzer
// may run in a worker process (JTRACE_ROLES=worker) while other instances ingest and read.

import type { Queryable } from '../db/pool.ts';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * A pause never exceeds this, in ms: a long batch on a busy database waits at most this long
 * before the next, so a journey's findings stay seconds behind, not minutes.
 */
export const MAX_PAUSE_MS = 2_000;
/**
 * Once other work was seen, the database counts as busy until the analyzer has watched it quiet
 * for this long, in ms (its waits added up; its own batches, during which it sees nothing, do not
 * count): one look that falls between two requests of a steady load must not end the pacing.
 */
export const BUSY_HOLD_MS = 1_000;

/**
 * The pause after a batch of `batchMs`: none when idle; while busy, what makes the batch
 * `share` of the time from its start to the next batch's (batchMs / (batchMs + pause) = share),
 * at most maxPauseMs. A share of 1 (or more) never pauses.
 */
export function pauseAfter(batchMs: number, busy: boolean, share: number, maxPauseMs = MAX_PAUSE_MS): number {
  if (!busy || share >= 1 || batchMs <= 0) return 0;
  return Math.min(maxPauseMs, (batchMs * (1 - share)) / share);
}

export interface PaceDecision {
  batchMs: number;
  busy: boolean;
  /** The pause the rule asked for (0 when idle). */
  pauseMs: number;
  /** How long the analyzer did not work before its next batch: the pause, or the short look when idle. */
  waitedMs: number;
}

export interface Pacer {
  /** Waits as long as the rule asks after a batch that took `batchMs`, and says what it decided. */
  pace(batchMs: number): Promise<PaceDecision>;
}

/**
 * When the database looked idle, the analyzer still looks this long, in ms, before its next
 * batch: what ran meanwhile is what it sees (databaseBusy), since its own connections are quiet then.
 */
export const LOOK_MS = 20;

export interface PacerOptions {
  /** True when other work used the database in the last `windowMs` (databaseBusy below). */
  busyNow: (windowMs: number) => Promise<boolean>;
  busyShare: number;
  maxPauseMs?: number;
  holdMs?: number;
  lookMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Every decision, for the metric and for tests. */
  onDecision?: (decision: PaceDecision) => void;
}

export function createPacer(options: PacerOptions): Pacer {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const holdMs = options.holdMs ?? BUSY_HOLD_MS;
  const lookMs = options.lookMs ?? LOOK_MS;
  /** Quiet time watched since other work was last seen; infinite before any was. */
  let quietMs = Number.POSITIVE_INFINITY;
  const rule = (batchMs: number, busy: boolean) => pauseAfter(batchMs, busy, options.busyShare, options.maxPauseMs);
  // The wait is the window observed: the analyzer's own statements all ended before it began.
  const observe = async (windowMs: number) => {
    // A failed look says nothing: the last verdict stands.
    if (await options.busyNow(windowMs).catch(() => false)) quietMs = 0;
    else quietMs += windowMs;
  };
  return {
    async pace(batchMs) {
      let busy = quietMs < holdMs;
      let pauseMs = rule(batchMs, busy);
      let waitedMs = Math.max(pauseMs, lookMs);
      await sleep(waitedMs);
      await observe(waitedMs);
      if (!busy && quietMs < holdMs) {
        // Other work began while the analyzer looked: the rest of the pause it asks for.
        busy = true;
        pauseMs = rule(batchMs, true);
        if (pauseMs > waitedMs) await sleep(pauseMs - waitedMs);
        waitedMs = Math.max(pauseMs, waitedMs);
      }
      const decision = { batchMs, busy, pauseMs, waitedMs };
      options.onDecision?.(decision);
      return decision;
    },
  };
}

/**
 * True when another session of this database ran a statement in the last `windowMs`, runs one
 * now or holds a transaction open (an ingesting group between statements). Every instance on the
 * database counts, whichever process it is. The analyzer's own connections were quiet for the
 * window (it waited), and this one is excluded.
 */
export function databaseBusy(db: Queryable): (windowMs: number) => Promise<boolean> {
  return async (windowMs) => {
    const result = await db.query<{ busy: boolean }>({
      name: 'findings-pacing-busy',
      text: `SELECT EXISTS (
               SELECT 1 FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                  AND (state IN ('active', 'idle in transaction')
                       OR state_change > clock_timestamp() - make_interval(secs => $1::float8 / 1000))) AS busy`,
      values: [windowMs],
    });
    return result.rows[0]!.busy;
  };
}

/** The server's pacer: busy read from the database, every pause counted in service_findings_analyzer_paced_seconds_total. */
export function analyzerPacer(db: Queryable, busyShare: number, metrics: Pick<Metrics, 'analyzerPacedSeconds'>): Pacer {
  return createPacer({
    busyNow: databaseBusy(db),
    busyShare,
    onDecision: (decision) => {
      if (decision.pauseMs > 0) metrics.analyzerPacedSeconds.inc(decision.pauseMs / 1000);
    },
  });
}
