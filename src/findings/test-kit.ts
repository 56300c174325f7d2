// Shared set-up of the findings tests (not a test itself): an analyzer on a test database that
// only runs when a test drains it, and reads of what it stored.

import pino from 'pino';
import type { Pool } from '../db/pool.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { startAnalyzer, type Analyzer, type AnalyzerDeps } from './analyzer.ts';
import type { JourneyFinding } from './analyze.ts';
import { selectFindings } from './findings-sql.ts';

/** An analyzer whose timer never fires during a test: the test drains it. */
export function quietAnalyzer(pool: Pool, extra: Partial<AnalyzerDeps> = {}): Analyzer {
  return startAnalyzer({ pool, logger: pino({ level: 'silent' }), metrics: createMetrics(), idleMs: 3_600_000, lockRetryMs: 3_600_000, ...extra });
}

/** Drains until no journey is pending (a drain may leave journeys marked during it). */
export async function drainAll(analyzer: Analyzer, pool: Pool): Promise<void> {
  for (let round = 0; round < 20; round++) {
    await analyzer.drain();
    if ((await pendingCount(pool)) === 0) return;
  }
  throw new Error('journeys are still pending after 20 drains');
}

export async function pendingCount(pool: Pool): Promise<number> {
  return (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journey_findings_pending')).rows[0]!.n;
}

/** Marks every journey for analysis again, as an event stored now would. */
export async function markAll(pool: Pool): Promise<void> {
  await pool.query(
    `INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at)
     SELECT project_id, id, nextval('journey_findings_pending_seq'), now() FROM journeys
     ON CONFLICT (project_id, journey_id) DO UPDATE SET pending = EXCLUDED.pending`,
  );
}

export async function storedFindings(pool: Pool, projectId: string, journeyId: string): Promise<JourneyFinding[]> {
  return (await selectFindings(pool, projectId, [journeyId], null)).get(journeyId) ?? [];
}

/** Every stored finding of the database, as comparable text rows. */
export async function allFindingRows(pool: Pool): Promise<string[]> {
  const result = await pool.query<{ row: string }>(
    `SELECT concat_ws('|', f.journey_id, u.ordinal - 1, u.kind, u.path, u.step_event_id, u.in_transit, u.from_event_id) AS row
       FROM journey_findings f, unnest(f.kind, f.path, f.step_event_id, f.in_transit, f.from_event_id)
              WITH ORDINALITY AS u(kind, path, step_event_id, in_transit, from_event_id, ordinal)
      ORDER BY f.journey_id COLLATE "C", u.ordinal`,
  );
  return result.rows.map((r) => r.row);
}
