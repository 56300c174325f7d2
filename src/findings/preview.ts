// What an expectation would say before it is saved (docs/findings.md): over the entity type's
// most recent journeys, how many would be overdue or skip a step, and which named steps none of
// them has (a typo, or a step not instrumented yet). Read-only, and bounded: a fixed number of
// journeys and of events per journey.
import type { Queryable } from '../db/pool.ts';
import type { PayloadEvent } from '../query/journey-payloads.ts';
import { againstExpectation } from './analyze.ts';
import type { Expectation } from './expectation-input.ts';

/** Journeys a preview reads: the most recent of the type, by last event. */
export const PREVIEW_JOURNEYS = 500;
/** Events read per journey: a longer journey is judged on its first ones (its final step may be later). */
const PREVIEW_EVENTS_PER_JOURNEY = 1000;

export interface ExpectationPreview {
  journeys: number;
  overdue: number;
  skippedStep: number;
  /** Named steps (the final one included) that none of the journeys read has. */
  unseenSteps: string[];
}

export async function previewExpectation(db: Queryable, projectId: string, entityType: string, expectation: Expectation, nowMs: number): Promise<ExpectationPreview> {
  const result = await db.query<{ journey_id: string; started_ms: string; id: string; name: string; service: string; operation: string; ts: Date }>(
    `WITH recent AS (SELECT id, started_at FROM journeys WHERE project_id = $1 AND entity_type = $2
                      ORDER BY last_event_at DESC, id COLLATE "C" DESC LIMIT $3)
     SELECT journey_id, (EXTRACT(EPOCH FROM started_at) * 1000)::int8 AS started_ms, id, name, service, operation, ts FROM (
       SELECT e.journey_id, r.started_at, e.id, e.name, e.service, e.operation, e.event_timestamp AS ts,
              row_number() OVER (PARTITION BY e.journey_id ORDER BY e.event_timestamp, e.received_at, e.id COLLATE "C") AS n
         FROM events e JOIN recent r ON e.project_id = $1 AND e.journey_id = r.id) ordered
      WHERE n <= $4
      ORDER BY journey_id COLLATE "C", n`,
    [projectId, entityType, PREVIEW_JOURNEYS, PREVIEW_EVENTS_PER_JOURNEY],
  );
  const byJourney = new Map<string, { startedAtMs: number; events: PayloadEvent[] }>();
  const seen = new Set<string>();
  for (const row of result.rows) {
    const journey = byJourney.get(row.journey_id) ?? { startedAtMs: Number(row.started_ms), events: [] };
    journey.events.push({
      id: row.id, name: row.name, service: row.service, operation: row.operation, eventTimestamp: row.ts.toISOString(),
      durationMs: null, hasInput: false, hasOutput: false, hasError: false, inputPayload: null, outputPayload: null,
    });
    byJourney.set(row.journey_id, journey);
    seen.add(row.name);
  }
  let overdue = 0;
  let skippedStep = 0;
  for (const journey of byJourney.values()) {
    const findings = againstExpectation(journey.events, journey.startedAtMs, expectation, nowMs);
    if (findings.some((f) => f.kind === 'overdue')) overdue += 1;
    if (findings.some((f) => f.kind === 'skipped_step')) skippedStep += 1;
  }
  const named = [...new Set([...expectation.steps.map((s) => s.name), expectation.finalStep])];
  return { journeys: byJourney.size, overdue, skippedStep, unseenSteps: byJourney.size === 0 ? [] : named.filter((name) => !seen.has(name)) };
}
