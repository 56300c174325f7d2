// The findings the analyzer stored (src/findings/, migration 0019: one row per journey, the
// findings as parallel arrays), as the journey reads show them: a JSON array per journey, in the
// analyzer's order.

/** The findings of journey row `j` as a JSON array; at most `limit` when given. */
export function findingsJsonSql(limit: number | null): string {
  const step = (prefix: string) =>
    `CASE WHEN u.${prefix}_event_id IS NULL THEN NULL ELSE json_build_object('eventId', u.${prefix}_event_id, 'service', u.${prefix}_service, 'name', u.${prefix}_name) END`;
  return `COALESCE((SELECT json_agg(json_build_object('kind', u.kind, 'path', u.path, 'step', ${step('step')}, 'inTransit', u.in_transit,
                                                    'from', ${step('from')}) ORDER BY u.ordinal)
                      FROM journey_findings f,
                           unnest(f.kind, f.path, f.step_event_id, f.step_service, f.step_name, f.in_transit, f.from_event_id, f.from_service, f.from_name)
                             WITH ORDINALITY AS u(kind, path, step_event_id, step_service, step_name, in_transit, from_event_id, from_service, from_name, ordinal)
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
