// SQL of the analyzer's marks (migration 0019): a row per journey to analyse, written by
// ingestion in the statements that write the journey's summary, by saving an expectation and by
// the deadline pass here; deleted by the analyzer with the journey's findings stored.

import type { Queryable } from '../db/pool.ts';

export interface PendingJourney {
  projectId: string;
  id: string;
  environmentId: string;
  entityType: string;
  startedAt: Date;
  lastEventAt: Date;
  /** The mark as read: cleared only if nothing marked the journey again meanwhile (int8, read as a number: src/db/pool.ts). */
  pending: number;
}

/** The oldest marks first: a journey marked long ago is not starved by busy ones. */
export async function selectPendingJourneys(db: Queryable, limit: number): Promise<PendingJourney[]> {
  const result = await db.query<{ project_id: string; id: string; environment_id: string; entity_type: string; started_at: Date; last_event_at: Date; pending: number }>(
    `SELECT j.project_id, j.id, j.environment_id, j.entity_type, j.started_at, j.last_event_at, p.pending
       FROM (SELECT project_id, journey_id, pending FROM journey_findings_pending ORDER BY pending LIMIT $1) p
       JOIN journeys j ON j.project_id = p.project_id AND j.id = p.journey_id
      ORDER BY p.pending`,
    [limit],
  );
  return result.rows.map((row) => ({
    projectId: row.project_id,
    id: row.id,
    environmentId: row.environment_id,
    entityType: row.entity_type,
    startedAt: row.started_at,
    lastEventAt: row.last_event_at,
    pending: row.pending,
  }));
}

/**
 * Marks journeys whose expectation's deadline or longest gap has passed since they were last
 * analysed, without their final step and not yet found overdue: time alone makes them overdue,
 * no event will mark them. At most `limit` per pass. The journeys are locked first, in the order
 * ingestion locks them, skipping those a batch holds (it marks them itself): a mark written
 * before its journey is locked could wait on a batch that waits on the mark.
 */
export async function markDueJourneys(db: Queryable, now: Date, limit: number): Promise<number> {
  const result = await db.query(
    `WITH due AS (
       SELECT d.project_id, d.id FROM journeys d
         JOIN expectations x ON x.project_id = d.project_id AND x.entity_type = d.entity_type
        WHERE NOT EXISTS (SELECT 1 FROM journey_findings_pending p WHERE p.project_id = d.project_id AND p.journey_id = d.id)
          AND ((x.deadline_seconds IS NOT NULL AND d.started_at + make_interval(secs => x.deadline_seconds) < $1)
            OR (x.max_gap_seconds IS NOT NULL AND d.last_event_at + make_interval(secs => x.max_gap_seconds) < $1))
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.project_id = d.project_id AND e.journey_id = d.id AND e.name = x.final_step)
          AND NOT EXISTS (SELECT 1 FROM journey_findings f WHERE f.project_id = d.project_id AND f.journey_id = d.id AND 'overdue' = ANY (f.kind))
        ORDER BY d.project_id, d.id COLLATE "C"
        LIMIT $2
        FOR NO KEY UPDATE OF d SKIP LOCKED
     )
     INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at)
     SELECT project_id, id, nextval('journey_findings_pending_seq'), $1 FROM due
     ON CONFLICT (project_id, journey_id) DO NOTHING`,
    [now, limit],
  );
  return result.rowCount ?? 0;
}

/**
 * Marks every journey of an entity type (its expectation changed), locking them first in the
 * order ingestion and the analyzer lock journeys. A journey the analyzer is storing is marked
 * again after it commits, so it is analysed again with the new expectation.
 */
export async function markEntityType(db: Queryable, projectId: string, entityType: string): Promise<void> {
  await db.query(
    `WITH locked AS (
       SELECT project_id, id FROM journeys WHERE project_id = $1 AND entity_type = $2 ORDER BY id COLLATE "C" FOR NO KEY UPDATE
     )
     INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at)
     SELECT project_id, id, nextval('journey_findings_pending_seq'), now() FROM locked
     ON CONFLICT (project_id, journey_id) DO UPDATE SET pending = EXCLUDED.pending`,
    [projectId, entityType],
  );
}

/** Seconds since the oldest mark still waiting (0 when none): the analyzer's lag. */
export async function selectLagSeconds(db: Queryable, now: Date): Promise<number> {
  const result = await db.query<{ lag: number | null }>(
    `SELECT EXTRACT(EPOCH FROM ($1::timestamptz - min(pending_at)))::float8 AS lag FROM journey_findings_pending`,
    [now],
  );
  return Math.max(0, result.rows[0]?.lag ?? 0);
}
