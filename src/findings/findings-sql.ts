// SQL of the analyzer: the journeys marked by ingestion (migration 0007), their findings
// replaced and their mark cleared in one transaction, and the reads of stored findings.

import type { Queryable } from '../db/pool.ts';
import type { FindingKind, FindingStep, JourneyFinding } from './analyze.ts';

export interface PendingJourney {
  projectId: string;
  id: string;
  environmentId: string;
  entityType: string;
  startedAt: Date;
  lastEventAt: Date;
  /** The mark as read: cleared only if nothing marked the journey again meanwhile. */
  pending: string;
}

/** The oldest marks first: a journey marked long ago is not starved by busy ones. */
export async function selectPendingJourneys(db: Queryable, limit: number): Promise<PendingJourney[]> {
  const result = await db.query<{ project_id: string; id: string; environment_id: string; entity_type: string; started_at: Date; last_event_at: Date; findings_pending: string }>(
    `SELECT project_id, id, environment_id, entity_type, started_at, last_event_at, findings_pending
       FROM journeys WHERE findings_pending IS NOT NULL ORDER BY findings_pending LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({
    projectId: row.project_id,
    id: row.id,
    environmentId: row.environment_id,
    entityType: row.entity_type,
    startedAt: row.started_at,
    lastEventAt: row.last_event_at,
    pending: row.findings_pending,
  }));
}

export interface AnalysedJourney {
  journey: PendingJourney;
  findings: JourneyFinding[];
}

/**
 * In the caller's transaction: locks the journeys (project, then id in byte order, the order
 * ingestion locks them in, so the two never deadlock), replaces the findings of those still
 * there, and clears each mark that still holds the value read. Returns the journeys cleared.
 */
export async function storeAnalyses(db: Queryable, analysed: AnalysedJourney[], now: Date): Promise<number> {
  if (analysed.length === 0) return 0;
  const keys = analysed.map((a) => ({ project_id: a.journey.projectId, id: a.journey.id, pending: a.journey.pending }));
  const locked = await db.query<{ project_id: string; id: string }>(
    `SELECT j.project_id, j.id FROM journeys j
       JOIN jsonb_to_recordset($1::jsonb) AS k(project_id uuid, id text) ON j.project_id = k.project_id AND j.id = k.id
      ORDER BY j.project_id, j.id COLLATE "C" FOR UPDATE OF j`,
    [JSON.stringify(keys)],
  );
  const present = new Set(locked.rows.map((row) => `${row.project_id}\u0000${row.id}`));
  const kept = analysed.filter((a) => present.has(`${a.journey.projectId}\u0000${a.journey.id}`));
  if (kept.length === 0) return 0;
  const keptKeys = JSON.stringify(kept.map((a) => ({ project_id: a.journey.projectId, id: a.journey.id, pending: a.journey.pending })));
  const rows = kept.flatMap(({ journey, findings }) =>
    findings.map((finding, ordinal) => ({
      project_id: journey.projectId,
      journey_id: journey.id,
      ordinal,
      environment_id: journey.environmentId,
      entity_type: journey.entityType,
      kind: finding.kind,
      path: finding.path,
      step_event_id: finding.step?.eventId ?? null,
      step_service: finding.step?.service ?? null,
      step_name: finding.step?.name ?? null,
      in_transit: finding.inTransit,
      from_event_id: finding.from?.eventId ?? null,
      from_service: finding.from?.service ?? null,
      from_name: finding.from?.name ?? null,
      observed_at: journey.lastEventAt.toISOString(),
    })),
  );
  // The old findings go in the same statement; one found again keeps when it was first found,
  // so alert windows count it once.
  {
    await db.query(
      `WITH keys AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS k(project_id uuid, id text)),
            old AS (DELETE FROM journey_findings f USING keys k WHERE f.project_id = k.project_id AND f.journey_id = k.id
                    RETURNING f.project_id, f.journey_id, f.kind, f.path, f.step_event_id, f.from_event_id, f.first_found_at)
       INSERT INTO journey_findings (project_id, journey_id, ordinal, environment_id, entity_type, kind, path, step_event_id, step_service,
          step_name, in_transit, from_event_id, from_service, from_name, observed_at, first_found_at)
       SELECT r.project_id, r.journey_id, r.ordinal, r.environment_id, r.entity_type, r.kind, r.path, r.step_event_id, r.step_service,
          r.step_name, r.in_transit, r.from_event_id, r.from_service, r.from_name, r.observed_at,
          COALESCE((SELECT min(o.first_found_at) FROM old o WHERE o.project_id = r.project_id AND o.journey_id = r.journey_id AND o.kind = r.kind
                      AND o.path IS NOT DISTINCT FROM r.path AND o.step_event_id IS NOT DISTINCT FROM r.step_event_id
                      AND o.from_event_id IS NOT DISTINCT FROM r.from_event_id), $3::timestamptz)
         FROM jsonb_to_recordset($1::jsonb) AS r(project_id uuid, journey_id text, ordinal int, environment_id uuid, entity_type text,
          kind text, path text, step_event_id text, step_service text, step_name text, in_transit boolean, from_event_id text,
          from_service text, from_name text, observed_at timestamptz)`,
      [JSON.stringify(rows), keptKeys, now],
    );
  }
  const cleared = await db.query(
    `UPDATE journeys j SET findings_pending = NULL, findings_pending_at = NULL
       FROM jsonb_to_recordset($1::jsonb) AS k(project_id uuid, id text, pending int8)
      WHERE j.project_id = k.project_id AND j.id = k.id AND j.findings_pending = k.pending`,
    [keptKeys],
  );
  return cleared.rowCount ?? 0;
}

/**
 * Marks journeys whose expectation's deadline or longest gap has passed since they were last
 * analysed, without their final step and not yet found overdue: time alone makes them overdue,
 * no event will mark them. At most `limit` per pass.
 */
export async function markDueJourneys(db: Queryable, now: Date, limit: number): Promise<number> {
  const result = await db.query(
    `UPDATE journeys j SET findings_pending = nextval('journey_findings_pending_seq'), findings_pending_at = $1
      WHERE (j.project_id, j.id) IN (
        SELECT d.project_id, d.id FROM journeys d
          JOIN expectations x ON x.project_id = d.project_id AND x.entity_type = d.entity_type
         WHERE d.findings_pending IS NULL
           AND ((x.deadline_seconds IS NOT NULL AND d.started_at + make_interval(secs => x.deadline_seconds) < $1)
             OR (x.max_gap_seconds IS NOT NULL AND d.last_event_at + make_interval(secs => x.max_gap_seconds) < $1))
           AND NOT EXISTS (SELECT 1 FROM events e WHERE e.project_id = d.project_id AND e.journey_id = d.id AND e.name = x.final_step)
           AND NOT EXISTS (SELECT 1 FROM journey_findings f WHERE f.project_id = d.project_id AND f.journey_id = d.id AND f.kind = 'overdue')
         LIMIT $2)`,
    [now, limit],
  );
  return result.rowCount ?? 0;
}

/** Seconds since the oldest mark still waiting (0 when none): the analyzer's lag. */
export async function selectLagSeconds(db: Queryable, now: Date): Promise<number> {
  const result = await db.query<{ lag: number | null }>(
    `SELECT EXTRACT(EPOCH FROM ($1::timestamptz - min(findings_pending_at)))::float8 AS lag FROM journeys WHERE findings_pending IS NOT NULL`,
    [now],
  );
  return Math.max(0, result.rows[0]?.lag ?? 0);
}

interface FindingRecord {
  journey_id: string;
  kind: FindingKind;
  path: string | null;
  step_event_id: string | null;
  step_service: string | null;
  step_name: string | null;
  in_transit: boolean;
  from_event_id: string | null;
  from_service: string | null;
  from_name: string | null;
}

function stepOf(eventId: string | null, service: string | null, name: string | null): FindingStep | null {
  return eventId === null || service === null || name === null ? null : { eventId, service, name };
}

/** Stored findings of some journeys of one project, in the order the analyzer found them. */
export async function selectFindings(db: Queryable, projectId: string, journeyIds: string[], perJourney: number | null): Promise<Map<string, JourneyFinding[]>> {
  const byJourney = new Map<string, JourneyFinding[]>(journeyIds.map((id) => [id, []]));
  if (journeyIds.length === 0) return byJourney;
  const result = await db.query<FindingRecord>(
    `SELECT journey_id, kind, path, step_event_id, step_service, step_name, in_transit, from_event_id, from_service, from_name
       FROM journey_findings WHERE project_id = $1 AND journey_id = ANY($2::text[]) AND ($3::int IS NULL OR ordinal < $3)
      ORDER BY journey_id, ordinal`,
    [projectId, journeyIds, perJourney],
  );
  for (const row of result.rows) {
    byJourney.get(row.journey_id)?.push({
      kind: row.kind,
      path: row.path,
      step: stepOf(row.step_event_id, row.step_service, row.step_name),
      inTransit: row.in_transit,
      from: stepOf(row.from_event_id, row.from_service, row.from_name),
    });
  }
  return byJourney;
}
