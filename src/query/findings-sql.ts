// The findings the analyzer stored (src/findings/, migration 0007), as the journey reads show
// them: a JSON array per journey, in the analyzer's order.

/** The findings of journey row `j` as a JSON array; at most `limit` when given. */
export function findingsJsonSql(limit: number | null): string {
  const step = (prefix: string) =>
    `CASE WHEN f.${prefix}_event_id IS NULL THEN NULL ELSE json_build_object('eventId', f.${prefix}_event_id, 'service', f.${prefix}_service, 'name', f.${prefix}_name) END`;
  return `COALESCE((SELECT json_agg(json_build_object('kind', f.kind, 'path', f.path, 'step', ${step('step')}, 'inTransit', f.in_transit,
                                                    'from', ${step('from')}) ORDER BY f.ordinal)
                      FROM journey_findings f
                     WHERE f.project_id = j.project_id AND f.journey_id = j.id${limit === null ? '' : ` AND f.ordinal < ${Math.trunc(limit)}`}), '[]'::json)`;
}

export interface FindingView {
  kind: 'lost' | 'changed' | 'duplicated' | 'failed' | 'overdue' | 'skipped_step';
  path: string | null;
  step: { eventId: string; service: string; name: string } | null;
  inTransit: boolean;
  from: { eventId: string; service: string; name: string } | null;
}
