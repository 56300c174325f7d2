// SQL of problems (migration 0034, docs/problems.md): the list with its filters and keyset
// pages, one problem, and what its detail shows (series, releases, examples). The rows are kept
// by the triggers on journey_findings; this file only reads them, and problem-status.ts changes
// their status.

import type { Queryable } from '../db/pool.ts';

export const PROBLEM_STATUSES = ['open', 'regressed', 'resolved', 'ignored', 'expected'] as const;
export type ProblemStatus = (typeof PROBLEM_STATUSES)[number];
export const PROBLEM_SORTS = ['journeys', 'lastSeen', 'firstSeen'] as const;
export type ProblemSort = (typeof PROBLEM_SORTS)[number];

export interface ProblemRow {
  id: string;
  environment: string;
  kind: string;
  path: string | null;
  step_service: string | null;
  step_name: string | null;
  from_service: string | null;
  from_name: string | null;
  in_transit: boolean;
  /** The status as it reads now: an ignore whose date passed or whose journeys came reads open. */
  status: ProblemStatus;
  status_changed_at: Date;
  resolved_at: Date | null;
  resolved_next_release: boolean;
  ignored_until: Date | null;
  ignored_more_journeys: number | null;
  journeys_since_status: number;
  regressed_at: Date | null;
  regressed_release: string | null;
  journeys: number;
  first_seen: Date | null;
  last_seen: Date | null;
  /** The environment's retention: the daily series spans it. */
  retention_days: number;
  /** The sort's key of the row, as text (the cursor's). */
  sort_key: string;
}

/** The status a problem reads as at `$now`: an ignore ends at its date or after its N journeys. */
export const effectiveStatus = (now: string) => `CASE WHEN p.status = 'ignored' AND ((p.ignored_until IS NOT NULL AND p.ignored_until <= ${now})
    OR (p.ignored_more_journeys IS NOT NULL AND p.journeys_since_status >= p.ignored_more_journeys)) THEN 'open' ELSE p.status END`;

/**
 * Each sort, descending, then id descending: a backward walk of its index (migration 0034). A
 * problem left without journeys has no seen time and sorts last (NULLS FIRST read backwards).
 * The cursor holds the key as digits (epoch microseconds for times), never a date text the
 * database might refuse; -1 stands for none.
 */
const SORTS: Record<ProblemSort, { order: string; key: string; after: (key: string, id: string) => string }> = {
  journeys: { order: 'p.journeys DESC, p.id DESC', key: 'p.journeys::text', after: (key, id) => `(p.journeys, p.id) < (${key}::int4, ${id}::uuid)` },
  lastSeen: timeSort('p.last_seen'),
  firstSeen: timeSort('p.first_seen'),
};

function timeSort(column: string): (typeof SORTS)[ProblemSort] {
  return {
    order: `${column} DESC NULLS LAST, p.id DESC`,
    key: `COALESCE((extract(epoch FROM ${column}) * 1000000)::int8, -1)::text`,
    after: (key, id) => `(CASE WHEN ${key}::int8 = -1 THEN ${column} IS NULL AND p.id < ${id}::uuid
      ELSE ${column} IS NULL OR (${column}, p.id) < (timestamptz 'epoch' + ${key}::int8 * interval '1 microsecond', ${id}::uuid) END)`,
  };
}

/**
 * The status condition: written so the planner can keep to the sort's index (the effective status
 * only differs from the stored one for an ignore that ended).
 */
const statusCondition = (now: string, statuses: string) =>
  `((p.status <> 'ignored' AND p.status = ANY (${statuses})) OR (p.status = 'ignored' AND ${effectiveStatus(now)} = ANY (${statuses})))`;

const COLUMNS = `p.id, e.name AS environment, p.kind, p.path, p.step_service, p.step_name, p.from_service, p.from_name, p.in_transit,
  p.status_changed_at, p.resolved_at, p.resolved_next_release, p.ignored_until, p.ignored_more_journeys, p.journeys_since_status,
  p.regressed_at, p.regressed_release, p.journeys, p.first_seen, p.last_seen, e.retention_days`;

export interface ProblemFilters {
  statuses: readonly ProblemStatus[];
  kind: string | null;
  path: string | null;
  service: string | null;
  environment: string | null;
  release: string | null;
  since: Date | null;
}

export interface ProblemPage {
  sort: ProblemSort;
  /** After this position (the sort's key as text, then the id), or from the start. */
  after: { key: string; id: string } | null;
  limit: number;
}

/** One page of the project's problems, in the sort's order (descending, then id descending). */
export async function selectProblems(db: Queryable, projectId: string, filters: ProblemFilters, page: ProblemPage, now: Date): Promise<ProblemRow[]> {
  const sort = SORTS[page.sort];
  const values: unknown[] = [projectId, now, filters.statuses];
  const where = [`p.project_id = $1`, statusCondition('$2', '$3::text[]')];
  const add = (value: unknown, condition: (at: string) => string) => {
    values.push(value);
    where.push(condition(`$${values.length}`));
  };
  if (filters.kind !== null) add(filters.kind, (at) => `p.kind = ${at}`);
  if (filters.path !== null) add(filters.path, (at) => `p.path = ${at}`);
  if (filters.service !== null) add(filters.service, (at) => `(p.step_service = ${at} OR p.from_service = ${at})`);
  if (filters.environment !== null) add(filters.environment, (at) => `e.name = ${at}`);
  if (filters.since !== null) add(filters.since, (at) => `p.last_seen >= ${at}`);
  if (filters.release !== null) {
    add(filters.release, (at) => `EXISTS (SELECT 1 FROM problem_journeys m WHERE m.project_id = p.project_id AND m.release = ${at} AND m.problem_id = p.id)`);
  }
  if (page.after !== null) {
    values.push(page.after.key, page.after.id);
    where.push(sort.after(`$${values.length - 1}`, `$${values.length}`));
  }
  values.push(page.limit);
  const result = await db.query<ProblemRow>(
    `SELECT ${COLUMNS}, ${effectiveStatus('$2')} AS status, ${sort.key} AS sort_key
       FROM problems p JOIN environments e ON e.project_id = p.project_id AND e.id = p.environment_id
      WHERE ${where.join(' AND ')}
      ORDER BY ${sort.order}
      LIMIT $${values.length}`,
    values,
  );
  return result.rows;
}

/** One problem of the project, or null. */
export async function selectProblem(db: Queryable, projectId: string, problemId: string, now: Date): Promise<ProblemRow | null> {
  const result = await db.query<ProblemRow>(
    `SELECT ${COLUMNS}, ${effectiveStatus('$3')} AS status, p.journeys::text AS sort_key
       FROM problems p JOIN environments e ON e.project_id = p.project_id AND e.id = p.environment_id
      WHERE p.project_id = $1 AND p.id = $2`,
    [projectId, problemId, now],
  );
  return result.rows[0] ?? null;
}

/** Journeys by bucket (`hour` or `day`) of their seen time, from `start` for `buckets` buckets. */
export async function selectSeries(db: Queryable, projectId: string, problemId: string, unit: 'hour' | 'day', start: Date, buckets: number): Promise<number[]> {
  const result = await db.query<{ bucket: number; journeys: number }>(
    `SELECT floor(extract(epoch FROM m.seen_at - $3::timestamptz) / $5)::int AS bucket, count(*)::int AS journeys
       FROM problem_journeys m
      WHERE m.project_id = $1 AND m.problem_id = $2 AND m.seen_at >= $3 AND m.seen_at < $4
      GROUP BY 1`,
    [projectId, problemId, start, new Date(start.getTime() + buckets * (unit === 'hour' ? 3_600_000 : 86_400_000)), unit === 'hour' ? 3600 : 86400],
  );
  const counts = new Array<number>(buckets).fill(0);
  for (const row of result.rows) if (row.bucket >= 0 && row.bucket < buckets) counts[row.bucket] = row.journeys;
  return counts;
}

export interface ReleaseRow {
  release: string | null;
  journeys: number;
  first_seen: Date;
  last_seen: Date;
}

/** The releases a problem was seen in, latest seen first. */
export async function selectReleases(db: Queryable, projectId: string, problemId: string): Promise<ReleaseRow[]> {
  const result = await db.query<ReleaseRow>(
    `SELECT release, count(*)::int AS journeys, min(seen_at) AS first_seen, max(seen_at) AS last_seen
       FROM problem_journeys WHERE project_id = $1 AND problem_id = $2
      GROUP BY release ORDER BY max(seen_at) DESC, release COLLATE "C" NULLS LAST LIMIT 100`,
    [projectId, problemId],
  );
  return result.rows;
}

export interface ProblemJourneyRow {
  journey_id: string;
  seen_at: Date;
  release: string | null;
}

/** The journeys that have a problem, latest seen first, after a position (seen time, journey id). */
export async function selectProblemJourneys(db: Queryable, projectId: string, problemId: string, after: { seenAt: Date; journeyId: string } | null, limit: number): Promise<ProblemJourneyRow[]> {
  const result = await db.query<ProblemJourneyRow>(
    `SELECT journey_id, seen_at, release FROM problem_journeys
      WHERE project_id = $1 AND problem_id = $2 AND ($3::timestamptz IS NULL OR (seen_at, journey_id COLLATE "C") < ($3, $4::text COLLATE "C"))
      ORDER BY seen_at DESC, journey_id COLLATE "C" DESC LIMIT $5`,
    [projectId, problemId, after?.seenAt ?? null, after?.journeyId ?? null, limit],
  );
  return result.rows;
}

/** The first and the latest journey that have it (by seen time). */
export async function selectExamples(db: Queryable, projectId: string, problemId: string): Promise<{ latest: string | null; first: string | null }> {
  const result = await db.query<{ latest: string | null; first: string | null }>(
    `SELECT (SELECT journey_id FROM problem_journeys WHERE project_id = $1 AND problem_id = $2 ORDER BY seen_at DESC, journey_id COLLATE "C" DESC LIMIT 1) AS latest,
            (SELECT journey_id FROM problem_journeys WHERE project_id = $1 AND problem_id = $2 ORDER BY seen_at, journey_id COLLATE "C" LIMIT 1) AS first`,
    [projectId, problemId],
  );
  return result.rows[0]!;
}
