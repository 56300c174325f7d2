// The findings the analyzer stored (src/findings/, migrations 0019 and 0024: one row per journey,
// the findings as parallel arrays, the steps they name listed once), as the journey reads show
// them: a JSON array per journey, in the analyzer's order.

/** The findings of journey row `j` as a JSON array; at most `limit` when given. */
export function findingsJsonSql(limit: number | null): string {
  const step = (at: string) =>
    `CASE WHEN u.${at} IS NULL THEN NULL ELSE json_build_object('eventId', f.step_ids[u.${at}], 'service', f.step_services[u.${at}], 'name', f.step_names[u.${at}]) END`;
  return `COALESCE((SELECT json_agg(json_build_object('kind', u.kind, 'path', u.path, 'step', ${step('step_at')}, 'inTransit', u.in_transit,
                                                    'from', ${step('from_at')}) ORDER BY u.ordinal)
                      FROM journey_findings f,
                           unnest(f.kind, f.path, f.step_at, f.in_transit, f.from_at) WITH ORDINALITY AS u(kind, path, step_at, in_transit, from_at, ordinal)
                     WHERE f.project_id = j.project_id AND f.journey_id = j.id${limit === null ? '' : ` AND u.ordinal <= ${Math.trunc(limit)}`}), '[]'::json)`;
}

/** Journeys with a finding of this kind, and this path when given (`kind` and `path` are placeholders). */
export function hasFindingSql(kind: string, path: string | null): string {
  if (path === null) {
    return `EXISTS (SELECT 1 FROM journey_findings f WHERE f.project_id = j.project_id AND f.journey_id = j.id AND ${kind} = ANY (f.kind))`;
  }
  return `EXISTS (SELECT 1 FROM journey_findings f, unnest(f.kind, f.path) AS u(kind, path)
                   WHERE f.project_id = j.project_id AND f.journey_id = j.id AND ${kind} = ANY (f.kind) AND u.kind = ${kind} AND u.path = ${path})`;
}

export interface FindingView {
  kind: 'lost' | 'changed' | 'duplicated' | 'failed' | 'overdue' | 'skipped_step';
  path: string | null;
  step: { eventId: string; service: string; name: string } | null;
  inTransit: boolean;
  from: { eventId: string; service: string; name: string } | null;
}
