import type { Queryable } from '../db/pool.ts';

/**
 * The deleting statements. Each batch statement first locks the journeys it will delete in
 * `id COLLATE "C"` order, the order ingestion locks them in (ingest-sql.ts lockJourneys), so a
 * deletion and an ingestion batch touching the same journeys wait for each other instead of
 * deadlocking. After waiting for a lock, PostgreSQL re-checks the WHERE clause against the
 * newest row version, so a journey changed meanwhile is judged by its new state.
 * Deleting a journey cascades to its events, aliases, search tokens and the events' replay runs.
 */

export interface DeletedCounts {
  journeys: number;
  events: number;
}

/** Deletions run past the statement timeout (section 8): called first in each deletion transaction. */
export async function liftStatementTimeout(db: Queryable): Promise<void> {
  await db.query('SET LOCAL statement_timeout = 0');
}

/** The database clock: journeys.created_at is stamped by it, so "existed when it started" compares on it. */
export async function databaseNow(db: Queryable): Promise<Date> {
  const result = await db.query<{ now: Date }>('SELECT now() AS now');
  return result.rows[0]!.now;
}

function counted(rows: Array<{ event_count: number }>): DeletedCounts {
  return { journeys: rows.length, events: rows.reduce((sum, row) => sum + row.event_count, 0) };
}

/** One journey by id; null when the project has no such journey. */
export async function deleteJourneyRow(
  db: Queryable,
  projectId: string,
  journeyId: string,
): Promise<{ environment: string; eventCount: number } | null> {
  const result = await db.query<{ environment: string; event_count: number }>(
    `DELETE FROM journeys j USING environments e
      WHERE j.project_id = $1 AND j.id = $2 AND e.project_id = j.project_id AND e.id = j.environment_id
      RETURNING e.name AS environment, j.event_count`,
    [projectId, journeyId],
  );
  const row = result.rows[0];
  return row ? { environment: row.environment, eventCount: row.event_count } : null;
}

/**
 * Erasure: the journeys of a snapshot taken when the run started, each still holding the event
 * count it had then. A journey that received an event since (its count moved on) or that was
 * deleted and created again after the start is left alone.
 */
export async function deleteSnapshotBatch(
  db: Queryable,
  projectId: string,
  batch: { ids: string[]; eventCounts: number[] },
  startedAt: Date,
): Promise<DeletedCounts & { leftInPlace: number }> {
  const result = await db.query<{ event_count: number }>(
    `WITH picked AS (
       SELECT j.id FROM journeys j
         JOIN unnest($2::text[], $3::int[]) AS s(id, event_count) ON s.id = j.id
        WHERE j.project_id = $1 AND j.event_count = s.event_count AND j.created_at <= $4
        ORDER BY j.id COLLATE "C"
        FOR UPDATE OF j
     )
     DELETE FROM journeys d USING picked p
      WHERE d.project_id = $1 AND d.id = p.id
      RETURNING d.event_count`,
    [projectId, batch.ids, batch.eventCounts, startedAt],
  );
  // What the batch did not delete but still stands, created before the start: journeys that
  // received events meanwhile. The caller says so, as the erasure did not reach them.
  const left = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM journeys j
      WHERE j.project_id = $1 AND j.id = ANY($2::text[]) AND j.created_at <= $3`,
    [projectId, batch.ids, startedAt],
  );
  return { ...counted(result.rows), leftInPlace: left.rows[0]!.n };
}

/**
 * One batch of an environment's journeys whose last event falls in [after, before) (after null:
 * the beginning of time), created no later than startedAt (null: no such bound, the retention
 * sweep). The inner LIMIT walks journeys_environment_list, so each batch costs its own size.
 * `candidates` tells whether more may remain: a candidate that an event moved out of the range
 * meanwhile is not deleted, so fewer deletions than the limit do not mean the range is done.
 */
export async function deleteByLastEventBatch(
  db: Queryable,
  scope: { projectId: string; environmentId: string },
  range: { after: string | Date | null; before: string | Date },
  startedAt: Date | null,
  limit: number,
): Promise<DeletedCounts & { candidates: number }> {
  const result = await db.query<{ candidates: number; journeys: number; events: number }>(
    `WITH candidates AS (
       SELECT id FROM journeys
        WHERE project_id = $1 AND environment_id = $2 AND last_event_at < $4::timestamptz
          AND ($3::timestamptz IS NULL OR last_event_at >= $3::timestamptz)
          AND ($5::timestamptz IS NULL OR created_at <= $5::timestamptz)
        ORDER BY last_event_at, id
        LIMIT $6
     ), picked AS (
       SELECT j.id FROM journeys j JOIN candidates c ON c.id = j.id
        WHERE j.project_id = $1 AND j.environment_id = $2 AND j.last_event_at < $4::timestamptz
          AND ($3::timestamptz IS NULL OR j.last_event_at >= $3::timestamptz)
        ORDER BY j.id COLLATE "C"
        FOR UPDATE OF j
     ), deleted AS (
       DELETE FROM journeys d USING picked p
        WHERE d.project_id = $1 AND d.id = p.id
        RETURNING d.event_count
     )
     SELECT (SELECT count(*) FROM candidates)::int AS candidates, count(*)::int AS journeys,
            COALESCE(sum(event_count), 0)::int8 AS events
       FROM deleted`,
    [scope.projectId, scope.environmentId, range.after, range.before, startedAt, limit],
  );
  return result.rows[0]!;
}

export interface RetentionEnvironment {
  projectId: string;
  id: string;
  retentionDays: number;
}

/** Every environment of every project, in a stable order. */
export async function listRetentionEnvironments(db: Queryable): Promise<RetentionEnvironment[]> {
  const result = await db.query<RetentionEnvironment>(
    `SELECT project_id AS "projectId", id, retention_days AS "retentionDays"
       FROM environments ORDER BY project_id, id`,
  );
  return result.rows;
}
