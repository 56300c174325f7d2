// SQL of batch replays (migration 0035): the batch with its results, the lists, and the claims
// of the worker that runs it.

import type { Queryable } from '../db/pool.ts';

export interface ReplayTarget {
  kind: string;
  path: string | null;
  /** The step whose recorded input is replayed: the problem's step, or for a loss in transit the step the value left. */
  service: string | null;
  name: string | null;
}

/** The problem's kind, path and the step to replay; reads the problems table by its key. */
export async function selectReplayTarget(db: Queryable, projectId: string, problemId: string): Promise<ReplayTarget | null> {
  const result = await db.query<ReplayTarget>(
    `SELECT kind, path, CASE WHEN in_transit THEN from_service ELSE step_service END AS service,
            CASE WHEN in_transit THEN from_name ELSE step_name END AS name
       FROM problems WHERE project_id = $1 AND id = $2`,
    [projectId, problemId],
  );
  return result.rows[0] ?? null;
}

export interface NewBatch {
  id: string;
  problemId: string;
  destinationId: string;
  journeys: number;
  ratePerSecond: number;
  concurrency: number;
  actor: { type: 'user' | 'admin_token' | 'cli'; id: string | null; name: string | null };
  createdAt: Date;
}

/**
 * The batch and one pending result per journey: the problem's latest journeys, each with the
 * latest recorded event of the step (none when the journey has no event there any more).
 */
export async function insertBatch(db: Queryable, projectId: string, batch: NewBatch, target: ReplayTarget): Promise<number> {
  await db.query(
    `INSERT INTO problem_replays (project_id, id, problem_id, destination_id, requested, rate_per_second, concurrency,
                                  actor_type, actor_id, actor_name, created_at)
     VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8, $9, $10)`,
    [projectId, batch.id, batch.problemId, batch.destinationId, batch.ratePerSecond, batch.concurrency, batch.actor.type, batch.actor.id, batch.actor.name, batch.createdAt],
  );
  const inserted = await db.query(
    `INSERT INTO problem_replay_results (project_id, batch_id, ordinal, journey_id, event_id)
     SELECT $1, $2, row_number() OVER (ORDER BY m.seen_at DESC, m.journey_id), m.journey_id, e.id
       FROM (SELECT journey_id, seen_at FROM problem_journeys WHERE project_id = $1 AND problem_id = $3
              ORDER BY seen_at DESC, journey_id LIMIT $4) m
       LEFT JOIN LATERAL (SELECT e.id FROM events e
                           WHERE e.project_id = $1 AND e.journey_id = m.journey_id AND e.service = $5 AND e.name = $6
                           ORDER BY e.event_timestamp DESC, e.id DESC LIMIT 1) e ON true`,
    [projectId, batch.id, batch.problemId, batch.journeys, target.service, target.name],
  );
  const requested = inserted.rowCount ?? 0;
  await db.query(
    `UPDATE problem_replays SET requested = $3, status = CASE WHEN $3 = 0 THEN 'done' ELSE status END,
            finished_at = CASE WHEN $3 = 0 THEN created_at END
      WHERE project_id = $1 AND id = $2`,
    [projectId, batch.id, requested],
  );
  return requested;
}

export interface BatchRow {
  id: string;
  problem_id: string;
  destination_id: string;
  destination_name: string;
  status: 'running' | 'done' | 'cancelled';
  requested: number;
  kept: number;
  still_lost: number;
  failed: number;
  rate_per_second: string;
  concurrency: number;
  actor_type: 'user' | 'admin_token' | 'cli';
  actor_id: string | null;
  actor_name: string | null;
  created_at: Date;
  finished_at: Date | null;
}

// Counts read from the results (at most 1,000 per batch, one index range).
const BATCH_COLUMNS = `b.id, b.problem_id, b.destination_id, d.name AS destination_name, b.status, b.requested, b.rate_per_second,
  b.concurrency, b.actor_type, b.actor_id, b.actor_name, b.created_at, b.finished_at, c.kept, c.still_lost, c.failed`;
const BATCH_FROM = `problem_replays b
  JOIN replay_destinations d ON d.project_id = b.project_id AND d.id = b.destination_id
  CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE verdict = 'kept')::int AS kept, count(*) FILTER (WHERE verdict = 'still_lost')::int AS still_lost,
                             count(*) FILTER (WHERE verdict = 'failed')::int AS failed
                        FROM problem_replay_results r WHERE r.project_id = b.project_id AND r.batch_id = b.id) c`;

export async function selectBatch(db: Queryable, projectId: string, batchId: string): Promise<BatchRow | null> {
  const result = await db.query<BatchRow>(`SELECT ${BATCH_COLUMNS} FROM ${BATCH_FROM} WHERE b.project_id = $1 AND b.id = $2`, [projectId, batchId]);
  return result.rows[0] ?? null;
}

/** A problem's batches, newest first, after a keyset position. */
export async function selectBatches(db: Queryable, projectId: string, problemId: string, after: { createdAt: Date; id: string } | null, limit: number): Promise<BatchRow[]> {
  const result = await db.query<BatchRow>(
    `SELECT ${BATCH_COLUMNS} FROM ${BATCH_FROM}
      WHERE b.project_id = $1 AND b.problem_id = $2 AND ($3::timestamptz IS NULL OR (b.created_at, b.id) < ($3, $4::uuid))
      ORDER BY b.created_at DESC, b.id DESC LIMIT $5`,
    [projectId, problemId, after?.createdAt ?? null, after?.id ?? null, limit],
  );
  return result.rows;
}

export interface ResultRow {
  ordinal: number;
  journey_id: string;
  verdict: 'pending' | 'kept' | 'still_lost' | 'failed';
  replay_id: string | null;
  error_code: string | null;
  error_message: string | null;
  finished_at: Date | null;
}

export async function selectResults(db: Queryable, projectId: string, batchId: string, verdict: string | null, afterOrdinal: number, limit: number): Promise<ResultRow[]> {
  const result = await db.query<ResultRow>(
    `SELECT ordinal, journey_id, verdict, replay_id, error_code, error_message, finished_at FROM problem_replay_results
      WHERE project_id = $1 AND batch_id = $2 AND ($3::text IS NULL OR verdict = $3) AND ordinal > $4
      ORDER BY ordinal LIMIT $5`,
    [projectId, batchId, verdict, afterOrdinal, limit],
  );
  return result.rows;
}

/** Cancels a running batch; null when it is not running (finished, or not there). */
export async function cancelBatchRow(db: Queryable, projectId: string, batchId: string, at: Date): Promise<boolean> {
  const result = await db.query(
    `UPDATE problem_replays SET status = 'cancelled', finished_at = $3 WHERE project_id = $1 AND id = $2 AND status = 'running'`,
    [projectId, batchId, at],
  );
  return (result.rowCount ?? 0) > 0;
}

/** The project of a problem or a batch named by id alone (the CLI takes no project for them). */
export async function selectProjectOf(db: Queryable, table: 'problems' | 'problem_replays', id: string): Promise<string | null> {
  const result = await db.query<{ project_id: string }>(`SELECT project_id FROM ${table === 'problems' ? 'problems' : 'problem_replays'} WHERE id = $1 LIMIT 1`, [id]);
  return result.rows[0]?.project_id ?? null;
}
