import type { Queryable } from '../db/pool.ts';
import { ENTITY_TOKEN_KINDS } from '../protocol/search-token-kinds.ts';

/**
 * What an erasure or a range deletion would touch. An erasure matches through search tokens
 * of kind entity_id and alias only: a value that appears in a payload, a trace id or a journey
 * id is not an identifier of the entity (interface spec, Erase an identifier).
 */

const MATCHED_BY_TOKEN = `SELECT t.journey_id FROM search_tokens t
  WHERE t.project_id = $1 AND t.token = ANY($2::text[]) AND t.kind IN (${ENTITY_TOKEN_KINDS.map((kind) => `'${kind}'`).join(', ')})`;

/**
 * What an erasure matches: the value's exact tokens, and with loose matching (an opt-in) the
 * loose tokens of its e-mail or phone normal forms as well. An exact erasure runs the
 * statement it always ran.
 */
export interface ErasureTokens {
  exact: string[];
  /** Loose tokens of every form; null for an exact erasure. */
  loose: string[] | null;
}

/** The matching journey ids; loose tokens, when asked for, are the statement's parameter `looseParam`. */
function matchedBy(tokens: ErasureTokens, looseParam: string): string {
  if (tokens.loose === null) return MATCHED_BY_TOKEN;
  return `${MATCHED_BY_TOKEN} UNION ALL SELECT l.journey_id FROM loose_search_tokens l WHERE l.project_id = $1 AND l.token = ANY(${looseParam}::text[])`;
}

function tokenValues(tokens: ErasureTokens): unknown[] {
  return tokens.loose === null ? [] : [tokens.loose];
}

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
  tokens: ErasureTokens,
  environmentId: string | null,
  limit: number,
): Promise<MatchList> {
  const result = await db.query<MatchRow>(
    `SELECT j.id, e.name AS environment, j.entity_type, j.event_count, j.last_event_at, count(*) OVER () AS total
       FROM journeys j JOIN environments e ON e.project_id = j.project_id AND e.id = j.environment_id
      WHERE j.project_id = $1 AND ($3::uuid IS NULL OR j.environment_id = $3) AND j.id IN (${matchedBy(tokens, '$5')})
      ORDER BY j.last_event_at DESC, j.id DESC
      LIMIT $4`,
    [projectId, tokens.exact, environmentId, limit, ...tokenValues(tokens)],
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
  tokens: ErasureTokens,
  environmentId: string | null,
): Promise<ErasureSnapshot> {
  const result = await db.query<{ id: string; event_count: number }>(
    `SELECT j.id, j.event_count FROM journeys j
      WHERE j.project_id = $1 AND ($3::uuid IS NULL OR j.environment_id = $3) AND j.id IN (${matchedBy(tokens, '$4')})
      ORDER BY j.id COLLATE "C"`,
    [projectId, tokens.exact, environmentId, ...tokenValues(tokens)],
  );
  return { ids: result.rows.map((row) => row.id), eventCounts: result.rows.map((row) => row.event_count) };
}

/** How many journeys one form's tokens match (a loose dry run lists what each form finds). */
export async function countFormMatches(
  db: Queryable,
  projectId: string,
  form: { kind: 'exact' | 'loose'; tokens: string[] },
  environmentId: string | null,
): Promise<number> {
  const source = form.kind === 'exact'
    ? MATCHED_BY_TOKEN
    : 'SELECT l.journey_id FROM loose_search_tokens l WHERE l.project_id = $1 AND l.token = ANY($2::text[])';
  const result = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM journeys j
      WHERE j.project_id = $1 AND ($3::uuid IS NULL OR j.environment_id = $3) AND j.id IN (${source})`,
    [projectId, form.tokens, environmentId],
  );
  return result.rows[0]!.total;
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
