// SQL of the batch runner: a worker leases a running batch (SKIP LOCKED, so two workers never
// take the same one), claims its pending journeys one at a time, and records each verdict.

import type { Queryable } from '../db/pool.ts';
import type { ReplayTarget } from './batches-sql.ts';

export interface LeasedBatch extends ReplayTarget {
  project_id: string;
  id: string;
  destination_id: string;
  rate_per_second: string;
  concurrency: number;
  /** When the latest replay of the batch started: the rate holds across a change of worker. */
  last_started_at: Date | null;
}

/** Leases the oldest running batch nobody holds (or whose holder stopped renewing), skipping `held`. */
export async function leaseBatch(db: Queryable, owner: string, leaseMs: number, held: readonly string[]): Promise<LeasedBatch | null> {
  const result = await db.query<LeasedBatch>(
    `WITH chosen AS (
       SELECT project_id, id FROM problem_replays
        WHERE status = 'running' AND (lease_until IS NULL OR lease_until < clock_timestamp()) AND NOT (id = ANY ($3::uuid[]))
        ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED
     )
     UPDATE problem_replays b SET lease_owner = $1, lease_until = clock_timestamp() + make_interval(secs => $2 / 1000.0)
       FROM chosen, problems p
      WHERE b.project_id = chosen.project_id AND b.id = chosen.id AND p.project_id = b.project_id AND p.id = b.problem_id
     RETURNING b.project_id, b.id, b.destination_id, b.rate_per_second, b.concurrency, p.kind, p.path,
               CASE WHEN p.in_transit THEN p.from_service ELSE p.step_service END AS service,
               CASE WHEN p.in_transit THEN p.from_name ELSE p.step_name END AS name,
               (SELECT max(r.started_at) FROM problem_replay_results r WHERE r.project_id = b.project_id AND r.batch_id = b.id) AS last_started_at`,
    [owner, leaseMs, held],
  );
  return result.rows[0] ?? null;
}

/** Extends the lease; false when it was lost, or the batch is no longer running (cancelled, deleted). */
export async function renewLease(db: Queryable, batch: LeasedBatch, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db.query(
    `UPDATE problem_replays SET lease_until = clock_timestamp() + make_interval(secs => $4 / 1000.0)
      WHERE project_id = $1 AND id = $2 AND lease_owner = $3 AND status = 'running'`,
    [batch.project_id, batch.id, owner, leaseMs],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function releaseLease(db: Queryable, batch: LeasedBatch, owner: string): Promise<void> {
  await db.query(`UPDATE problem_replays SET lease_owner = NULL, lease_until = NULL WHERE project_id = $1 AND id = $2 AND lease_owner = $3`, [
    batch.project_id,
    batch.id,
    owner,
  ]);
}

export interface ClaimedJourney {
  ordinal: number;
  journey_id: string;
  event_id: string | null;
}

/**
 * The next pending journey, marked started, while the batch runs under this lease. A journey
 * started by a worker that stopped without finishing it (its lease lapsed) is taken again.
 */
export async function claimJourney(db: Queryable, batch: LeasedBatch, owner: string, staleMs: number): Promise<ClaimedJourney | null> {
  const result = await db.query<ClaimedJourney>(
    `UPDATE problem_replay_results r SET started_at = clock_timestamp()
      WHERE (r.project_id, r.batch_id, r.ordinal) = (
              SELECT q.project_id, q.batch_id, q.ordinal FROM problem_replay_results q
               WHERE q.project_id = $1 AND q.batch_id = $2 AND q.verdict = 'pending'
                 AND (q.started_at IS NULL OR q.started_at < clock_timestamp() - make_interval(secs => $4 / 1000.0))
               ORDER BY q.ordinal LIMIT 1 FOR UPDATE SKIP LOCKED)
        AND EXISTS (SELECT 1 FROM problem_replays b WHERE b.project_id = $1 AND b.id = $2 AND b.status = 'running' AND b.lease_owner = $3)
     RETURNING r.ordinal, r.journey_id, r.event_id`,
    [batch.project_id, batch.id, owner, staleMs],
  );
  return result.rows[0] ?? null;
}

export interface Outcome {
  verdict: 'kept' | 'still_lost' | 'failed';
  replayId: string | null;
  error: { code: string; message: string } | null;
}

export async function recordOutcome(db: Queryable, batch: LeasedBatch, ordinal: number, outcome: Outcome): Promise<void> {
  await db.query(
    `UPDATE problem_replay_results SET verdict = $4, replay_id = $5, error_code = $6, error_message = $7, finished_at = clock_timestamp()
      WHERE project_id = $1 AND batch_id = $2 AND ordinal = $3 AND verdict = 'pending'`,
    [batch.project_id, batch.id, ordinal, outcome.verdict, outcome.replayId, outcome.error?.code ?? null, outcome.error?.message ?? null],
  );
}

/** Marks the batch done when no journey is pending; a cancelled batch stays cancelled. */
export async function finishIfDone(db: Queryable, batch: LeasedBatch): Promise<void> {
  await db.query(
    `UPDATE problem_replays b SET status = 'done', finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL
      WHERE b.project_id = $1 AND b.id = $2 AND b.status = 'running'
        AND NOT EXISTS (SELECT 1 FROM problem_replay_results r WHERE r.project_id = b.project_id AND r.batch_id = b.id AND r.verdict = 'pending')`,
    [batch.project_id, batch.id],
  );
}
