import type { Queryable } from '../db/pool.ts';
import { ENTITY_TOKEN_KINDS } from '../protocol/search-token-kinds.ts';

/**
 * What an erasure or a range deletion would touch. An erasure matches through search tokens
 * of kind entity_id and alias only: a value that appears in a payload, a trace id or a journey
 * id is not an identifier of the entity (interface spec, Erase an identifier).
 */

const MATCHED_BY_TOKEN = `SELECT t.journey_id FROM search_tokens t
  WHERE t.project_id = $1 AND t.token = ANY($2::text[]) AND t.kind IN (${ENTITY_TOKEN_KINDS.map((kind) => `'${kind}'`).join(', ')})`;

export interface MatchedJourney {
  id: string;
  environment: string;
  entityType: string;
  eventCount: number;
  lastEventAt: Date;
}

export interface MatchList {
  journeys: MatchedJourney[];
  total: number;
}

interface MatchRow {
  id: string;
  environment: string;
  entity_type: string;
  event_count: number;
  last_event_at: Date;
  total: number;
}

function toList(rows: MatchRow[]): MatchList {
  return {
    journeys: rows.map((row) => ({
      id: row.id,
      environment: row.environment,
      entityType: row.entity_type,
      eventCount: row.event_count,
      lastEventAt: row.last_event_at,
    })),
    // count(*) OVER () is computed before LIMIT, so it counts every match.
    total: rows[0]?.total ?? 0,
  };
}

/** Erasure dry run: most recent first (lastEventAt desc, id desc, as search orders). */
export async function listErasureMatches(
  db: Queryable,
  projectId: string,
  tokens: string[],
  environmentId: string | null,
  limit: number,
): Promise<MatchList> {
  const result = await db.query<MatchRow>(
    `SELECT j.id, e.name AS environment, j.entity_type, j.event_count, j.last_event_at, count(*) OVER () AS total
       FROM journeys j JOIN environments e ON e.project_id = j.project_id AND e.id = j.environment_id
      WHERE j.project_id = $1 AND ($3::uuid IS NULL OR j.environment_id = $3) AND j.id IN (${MATCHED_BY_TOKEN})
      ORDER BY j.last_event_at DESC, j.id DESC
      LIMIT $4`,
    [projectId, tokens, environmentId, limit],
  );
  return toList(result.rows);
}

export interface ErasureSnapshot {
  ids: string[];
  eventCounts: number[];
}

/**
 * The journeys an erasure run will delete, with the event count each has now: one statement,
 * so one consistent view of what existed when the run started.
 */
export async function snapshotErasureMatches(
  db: Queryable,
  projectId: string,
  tokens: string[],
  environmentId: string | null,
): Promise<ErasureSnapshot> {
  const result = await db.query<{ id: string; event_count: number }>(
    `SELECT j.id, j.event_count FROM journeys j
      WHERE j.project_id = $1 AND ($3::uuid IS NULL OR j.environment_id = $3) AND j.id IN (${MATCHED_BY_TOKEN})
      ORDER BY j.id COLLATE "C"`,
    [projectId, tokens, environmentId],
  );
  return { ids: result.rows.map((row) => row.id), eventCounts: result.rows.map((row) => row.event_count) };
}

/** delete:range --dry-run: the environment's journeys whose last event is in [after, before). */
export async function listRangeMatches(
  db: Queryable,
  scope: { projectId: string; environmentId: string },
  range: { after: string | null; before: string },
  limit: number,
): Promise<MatchList> {
  const result = await db.query<MatchRow>(
    `SELECT j.id, e.name AS environment, j.entity_type, j.event_count, j.last_event_at, count(*) OVER () AS total
       FROM journeys j JOIN environments e ON e.project_id = j.project_id AND e.id = j.environment_id
      WHERE j.project_id = $1 AND j.environment_id = $2 AND j.last_event_at < $4::timestamptz
        AND ($3::timestamptz IS NULL OR j.last_event_at >= $3::timestamptz)
      ORDER BY j.last_event_at DESC, j.id DESC
      LIMIT $5`,
    [scope.projectId, scope.environmentId, range.after, range.before, limit],
  );
  return toList(result.rows);
}
