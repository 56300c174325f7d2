// Regressions for the alert rules of kind `regression` (docs/alerts.md): the problems that came
// back, counted per window of their regression time, with the journeys that brought them back.

import type { Queryable } from '../db/pool.ts';

export interface RegressionScope {
  project_id: string;
  path: string | null;
  environment_id: string | null;
}

/** Regressions in [from, to) by window of `sizeMs` (keyed by the window's start), still regressed. */
export async function countRegressionWindows(
  db: Queryable,
  rule: RegressionScope,
  range: { from: Date; to: Date; sizeMs: number },
  maxJourneys: number,
): Promise<Map<number, { count: number; journeys: string[] }>> {
  const result = await db.query<{ slot: string; count: number; journeys: string[] | null }>(
    `SELECT floor((extract(epoch FROM p.regressed_at) - extract(epoch FROM $2::timestamptz)) * 1000 / $7)::bigint AS slot,
            count(*)::int AS count, (array_agg(DISTINCT p.regressed_journey))[1:$6] AS journeys
       FROM problems p
      WHERE p.project_id = $1 AND p.regressed_at >= $2 AND p.regressed_at < $3 AND p.status = 'regressed'
        AND ($4::text IS NULL OR p.path = $4) AND ($5::uuid IS NULL OR p.environment_id = $5)
      GROUP BY slot`,
    [rule.project_id, range.from, range.to, rule.path, rule.environment_id, maxJourneys, range.sizeMs],
  );
  const from = range.from.getTime();
  return new Map(result.rows.map((row) => [from + Number(row.slot) * range.sizeMs, { count: row.count, journeys: row.journeys ?? [] }]));
}
