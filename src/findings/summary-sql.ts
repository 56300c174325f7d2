// SQL of the findings summary and of the expectation suggestion.

import type { Queryable } from '../db/pool.ts';
import { FINDING_KINDS, type FindingKind } from './analyze.ts';
import { MAX_SUMMARY_PATHS } from './limits.ts';
import { findingProblemIdSql } from '../problems/silenced.ts';

export interface SummaryScope {
  projectId: string;
  environmentId: string | null;
  since: Date;
  until: Date;
}

export interface FindingsSummary {
  counts: Record<FindingKind, number>;
  topLostFields: Array<{ path: string; journeys: number; step: { service: string; name: string }; stepJourneys: number }>;
}

/**
 * Journeys per kind, and the lost paths with the step each was lost at most, over the journeys
 * whose last event falls in the window (observed_at is the journey's lastEventAt when analysed).
 */
export async function selectFindingsSummary(db: Queryable, scope: SummaryScope, silenced: readonly string[] = []): Promise<FindingsSummary> {
  // Findings of expected and ignored problems are left out (docs/problems.md); most projects have none.
  const units = 'unnest(f.kind, f.path, f.step_at, f.from_at, f.in_transit) AS u(kind, path, step_at, from_at, in_transit)';
  const heard = silenced.length === 0 ? 'true' : `${findingProblemIdSql('f', 'u')} <> ALL ($5::uuid[])`;
  const where = `f.project_id = $1 AND f.observed_at >= $2 AND f.observed_at < $3 AND ($4::uuid IS NULL OR f.environment_id = $4)`;
  const values: unknown[] = [scope.projectId, scope.since, scope.until, scope.environmentId, ...(silenced.length === 0 ? [] : [silenced])];
  // A journey's row holds each of its findings once: a kind counts the rows that hold it.
  const counts = await db.query<{ kind: FindingKind; journeys: number }>(
    silenced.length === 0
      ? `SELECT k.kind, count(*)::int AS journeys FROM journey_findings f, LATERAL (SELECT DISTINCT unnest(f.kind) AS kind) k
          WHERE ${where} GROUP BY k.kind`
      : `SELECT k.kind, count(*)::int AS journeys FROM journey_findings f, LATERAL (SELECT DISTINCT u.kind FROM ${units} WHERE ${heard}) k
          WHERE ${where} GROUP BY k.kind`,
    values,
  );
  const paths = await db.query<{ path: string; journeys: number; step_service: string; step_name: string; step_journeys: number }>(
    `WITH lost AS (SELECT u.path, f.step_services[u.step_at] AS step_service, f.step_names[u.step_at] AS step_name, f.journey_id
                     FROM journey_findings f, ${units}
                    WHERE ${where} AND 'lost' = ANY (f.kind) AND u.kind = 'lost' AND u.path IS NOT NULL AND u.step_at IS NOT NULL AND ${heard}),
          per_path AS (SELECT path, count(DISTINCT journey_id)::int AS journeys FROM lost GROUP BY path),
          per_step AS (SELECT path, step_service, step_name, count(DISTINCT journey_id)::int AS step_journeys,
                              row_number() OVER (PARTITION BY path ORDER BY count(DISTINCT journey_id) DESC,
                                                 step_service COLLATE "C", step_name COLLATE "C") AS rank
                         FROM lost GROUP BY path, step_service, step_name)
     SELECT p.path, p.journeys, s.step_service, s.step_name, s.step_journeys
       FROM per_path p JOIN per_step s ON s.path = p.path AND s.rank = 1
      ORDER BY p.journeys DESC, p.path COLLATE "C" LIMIT ${MAX_SUMMARY_PATHS}`,
    values,
  );
  const byKind = Object.fromEntries(FINDING_KINDS.map((kind) => [kind, 0])) as Record<FindingKind, number>;
  for (const row of counts.rows) byKind[row.kind] = row.journeys;
  return {
    counts: byKind,
    topLostFields: paths.rows.map((row) => ({
      path: row.path,
      journeys: row.journeys,
      step: { service: row.step_service, name: row.step_name },
      stepJourneys: row.step_journeys,
    })),
  };
}

export interface CompletedStep {
  journey_id: string;
  name: string;
  ts_ms: number;
}

/** The steps (name, time) of the last `limit` completed journeys of an entity type, in timeline order. */
export async function selectCompletedJourneySteps(db: Queryable, projectId: string, entityType: string, limit: number): Promise<CompletedStep[]> {
  const result = await db.query<{ journey_id: string; name: string; ts_ms: string }>(
    `WITH recent AS (SELECT id FROM journeys WHERE project_id = $1 AND entity_type = $2 AND status = 'completed'
                      ORDER BY last_event_at DESC, id COLLATE "C" DESC LIMIT $3)
     SELECT e.journey_id, e.name, (EXTRACT(EPOCH FROM e.event_timestamp) * 1000)::int8 AS ts_ms
       FROM events e JOIN recent r ON e.project_id = $1 AND e.journey_id = r.id
      ORDER BY e.journey_id COLLATE "C", e.event_timestamp, e.received_at, e.id COLLATE "C"`,
    [projectId, entityType, limit],
  );
  return result.rows.map((row) => ({ journey_id: row.journey_id, name: row.name, ts_ms: Number(row.ts_ms) }));
}
