// Problems that are reported nowhere (docs/problems.md, "Statuses"): expected ones, and ignored
// ones while their ignore lasts. The findings summary and the alert rules leave their findings
// out; the findings themselves stay stored, so forensics still shows each journey's change.

import type { Queryable } from '../db/pool.ts';
import { effectiveStatus } from './problems-sql.ts';

/** The ids of the project's silenced problems at `now` (usually none or a few). */
export async function selectSilencedProblemIds(db: Queryable, projectId: string, now: Date): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `SELECT p.id FROM problems p WHERE p.project_id = $1 AND p.status IN ('expected', 'ignored') AND ${effectiveStatus('$2')} IN ('expected', 'ignored')`,
    [projectId, now],
  );
  return result.rows.map((row) => row.id);
}

/**
 * The problem id of the finding at array index `u.<i>` of findings row `f`, in SQL: the same key
 * as the problems triggers (migration 0034). `u` must carry kind, path, step_at, from_at and in_transit.
 */
export const findingProblemIdSql = (f: string, u: string) => `problem_id_of(${f}.project_id, ${f}.environment_id, ${u}.kind, ${u}.path,
  ${f}.step_services[${u}.step_at], ${f}.step_names[${u}.step_at],
  CASE WHEN ${u}.in_transit OR ${u}.kind = 'overdue' THEN ${f}.step_services[${u}.from_at] END,
  CASE WHEN ${u}.in_transit OR ${u}.kind = 'overdue' THEN ${f}.step_names[${u}.from_at] END, ${u}.in_transit)`;
