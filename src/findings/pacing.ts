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
 * Once other work was seen, the database counts as busy until this many looks in a row found it
 * quiet: one look that falls between two requests of a steady load must not end the pacing.
 */
export const BUSY_HOLD_LOOKS = 3;

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

/** When the database looked idle, the analyzer still waits this long, in ms, looking, before its next batch. */
export const LOOK_MS = 20;
/**
 * Instants sampled per look, spread over the wait. A load keeps some session busy most of the
 * time and is seen at one of them; a poller's statement of a millisecond a second almost never is.
 */
export const LOOK_SAMPLES = 4;

export interface PacerOptions {
  /** True when another session works on the database at this instant (databaseBusy below). */
  busyNow: () => Promise<boolean>;
  busyShare: number;
  maxPauseMs?: number;
  holdLooks?: number;
  lookMs?: number;
  lookSamples?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Every decision, for the metric and for tests. */
  onDecision?: (decision: PaceDecision) => void;
}

export function createPacer(options: PacerOptions): Pacer {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const holdLooks = options.holdLooks ?? BUSY_HOLD_LOOKS;
  const lookMs = options.lookMs ?? LOOK_MS;
  const samples = Math.max(1, options.lookSamples ?? LOOK_SAMPLES);
  /** Looks in a row that found the database quiet; as many as the hold before any work was seen. */
  let quietLooks = holdLooks;
  const rule = (batchMs: number, busy: boolean) => pauseAfter(batchMs, busy, options.busyShare, options.maxPauseMs);
  /** Samples spread over `waitMs`, stopping at the first busy one; returns the time waited and what was seen. */
  const look = async (waitMs: number) => {
    const slice = waitMs / samples;
    let waited = 0;
    let failed = false;
    for (let i = 0; i < samples; i++) {
      await sleep(slice);
      waited += slice;
      try {
        if (await options.busyNow()) return { waited, seen: 'busy' as const };
      } catch {
        failed = true;
      }
    }
    // A failed sample says nothing: unless another saw work, the last verdict stands.
    return { waited, seen: failed ? ('unknown' as const) : ('quiet' as const) };
  };
  return {
    async pace(batchMs) {
      let busy = quietLooks < holdLooks;
      let pauseMs = rule(batchMs, busy);
      const { waited, seen } = await look(Math.max(pauseMs, lookMs));
      if (seen === 'busy') quietLooks = 0;
      else if (seen === 'quiet') quietLooks += 1;
      if (!busy && seen === 'busy') {
        // Other work began while the analyzer looked: the pause it asks for from now on.
        busy = true;
        pauseMs = rule(batchMs, true);
      }
      if (pauseMs > waited) await sleep(pauseMs - waited);
      const decision = { batchMs, busy, pauseMs, waitedMs: Math.max(pauseMs, waited) };
      options.onDecision?.(decision);
      return decision;
    },
  };
}

/**
 * True when another session of this database runs a statement at this instant or holds a
 * transaction open (an ingesting group between its statements). Every instance on the database
 * counts, whichever process it is. The analyzer's own connections are quiet while it looks, and
 * this one is excluded. Only the instant counts, not what ended shortly before: background pollers
 * (job locks, outbox claims, a replica's lag, a pooler's reset) end a statement every second or
 * so, and a window would count each of them as load and keep the analyzer paced for ever.
 */
export function databaseBusy(db: Queryable): () => Promise<boolean> {
  return async () => {
    const result = await db.query<{ busy: boolean }>({
      name: 'findings-pacing-busy',
      text: `SELECT EXISTS (
               SELECT 1 FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                  AND state IN ('active', 'idle in transaction')) AS busy`,
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
