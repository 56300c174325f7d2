// Shared set-up of the problems tests (not a test itself): problems as stored, and the grouping
// of the stored findings computed here, apart from the database's, to compare them with.

import type { Pool } from '../db/pool.ts';

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

/** The key of a finding's problem, as text: environment, kind, path and place. */
function keyOf(environmentId: string, kind: string, path: string | null, step: [string, string] | null, from: [string, string] | null, inTransit: boolean) {
  // The from step places a loss in transit (the hand-off) and an overdue gap; elsewhere it is no part of the place.
  const place = inTransit || kind === 'overdue' ? from : null;
  return JSON.stringify([environmentId, kind, path, step, place, inTransit]);
}

export interface Grouping {
  [key: string]: { journeys: string[]; firstSeen: string | null; lastSeen: string | null };
}

/** The stored findings grouped by problem, in TypeScript: what the problems must equal. */
export async function groupFindings(pool: Pool, projectId: string): Promise<Grouping> {
  const rows = await pool.query<{ journey_id: string; environment_id: string; observed_at: Date; kind: string[]; path: Array<string | null>;
    step_at: Array<number | null>; from_at: Array<number | null>; in_transit: boolean[]; step_services: string[]; step_names: string[] }>(
    `SELECT journey_id, environment_id, observed_at, kind, path, step_at, from_at, in_transit, step_services, step_names
       FROM journey_findings WHERE project_id = $1`,
    [projectId],
  );
  const groups: Grouping = {};
  for (const row of rows.rows) {
    const at = (place: number | null): [string, string] | null => (place === null ? null : [row.step_services[place - 1]!, row.step_names[place - 1]!]);
    for (let i = 0; i < row.kind.length; i++) {
      const key = keyOf(row.environment_id, row.kind[i]!, row.path[i] ?? null, at(row.step_at[i] ?? null), at(row.from_at[i] ?? null), row.in_transit[i]!);
      const group = (groups[key] ??= { journeys: [], firstSeen: null, lastSeen: null });
      if (group.journeys.includes(row.journey_id)) continue;
      group.journeys.push(row.journey_id);
      const seen = iso(row.observed_at)!;
      if (group.firstSeen === null || seen < group.firstSeen) group.firstSeen = seen;
      if (group.lastSeen === null || seen > group.lastSeen) group.lastSeen = seen;
    }
  }
  for (const group of Object.values(groups)) group.journeys.sort();
  return groups;
}

/** The problems as stored with a journey or more: their counts, bounds and journeys. */
export async function storedProblems(pool: Pool, projectId: string): Promise<Grouping> {
  const rows = await pool.query<{ environment_id: string; kind: string; path: string | null; step_service: string | null; step_name: string | null;
    from_service: string | null; from_name: string | null; in_transit: boolean; journeys: number; first_seen: Date | null; last_seen: Date | null; members: string[] }>(
    `SELECT p.environment_id, p.kind, p.path, p.step_service, p.step_name, p.from_service, p.from_name, p.in_transit, p.journeys, p.first_seen, p.last_seen,
            ARRAY(SELECT m.journey_id FROM problem_journeys m WHERE m.project_id = p.project_id AND m.problem_id = p.id) AS members
       FROM problems p WHERE p.project_id = $1 AND (p.journeys > 0 OR EXISTS (SELECT 1 FROM problem_journeys m WHERE m.project_id = p.project_id AND m.problem_id = p.id))`,
    [projectId],
  );
  const groups: Grouping = {};
  for (const row of rows.rows) {
    const pair = (service: string | null, name: string | null): [string, string] | null => (service === null ? null : [service, name!]);
    const key = keyOf(row.environment_id, row.kind, row.path, pair(row.step_service, row.step_name), pair(row.from_service, row.from_name), row.in_transit);
    const journeys = [...row.members].sort();
    // The stored count must be the members' count: a mismatch shows as a journey list of another length.
    if (row.journeys !== journeys.length) journeys.push(`count ${row.journeys} for ${journeys.length} journeys`);
    groups[key] = { journeys, firstSeen: iso(row.first_seen), lastSeen: iso(row.last_seen) };
  }
  return groups;
}
