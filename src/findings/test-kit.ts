// Shared set-up of the findings tests (not a test itself): an analyzer on a test database that
// only runs when a test drains it, and reads of what it stored.

import fc from 'fast-check';
import pino from 'pino';
import type { Pool } from '../db/pool.ts';
import { TEST_ENCRYPTION_KEY } from '../../test/helpers/app.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { startAnalyzer, type Analyzer, type AnalyzerDeps } from './analyzer.ts';
import { FINDING_KINDS, type JourneyFinding } from './analyze.ts';
import { selectFindings } from './findings-sql.ts';

/** An analyzer whose timer never fires during a test: the test drains it. */
export function quietAnalyzer(pool: Pool, extra: Partial<AnalyzerDeps> = {}): Analyzer {
  return startAnalyzer({ pool, keyring: createKeyring({ current: TEST_ENCRYPTION_KEY }), logger: pino({ level: 'silent' }), metrics: createMetrics(), idleMs: 3_600_000, lockRetryMs: 3_600_000, ...extra });
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
    `SELECT concat_ws('|', f.journey_id, u.ordinal - 1, u.kind, u.path, f.step_ids[u.step_at], u.in_transit, f.step_ids[u.from_at]) AS row
       FROM journey_findings f, unnest(f.kind, f.path, f.step_at, f.in_transit, f.from_at)
              WITH ORDINALITY AS u(kind, path, step_at, in_transit, from_at, ordinal)
      ORDER BY f.journey_id COLLATE "C", u.ordinal`,
  );
  return result.rows.map((r) => r.row);
}

/**
 * Any findings of one journey with texts from `text`: their steps come from the journey's own
 * events, so one event id names one service and step name, as in any journey.
 */
export function journeyFindings(text: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<JourneyFinding[]> {
  return fc.uniqueArray(fc.record({ eventId: text, service: text, name: text }), { selector: (event) => event.eventId, maxLength: 6 }).chain((events) => {
    const step = events.length === 0 ? fc.constant(null) : fc.option(fc.constantFrom(...events), { nil: null });
    return fc.array(fc.record({ kind: fc.constantFrom(...FINDING_KINDS), path: fc.option(text, { nil: null }), step, inTransit: fc.boolean(), from: step }), { maxLength });
  });
}
