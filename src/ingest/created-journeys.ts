// The journeys a batch creates, with their events as the batch stores them: what the findings
// capability needs to compute their findings in the batch's transaction (src/findings/at-ingest.ts).

import type { CreatedJourney } from '../findings/at-ingest.ts';
import type { EventRow } from './ingest-sql.ts';
import type { JourneyState } from './journey-summary.ts';

interface NewJourney {
  state: JourneyState;
  environmentId: string;
  entityType: string;
}

/** Every event of a created journey is in this batch: it had none stored before. */
export function createdJourneys(created: ReadonlyArray<readonly [string, NewJourney]>, rows: readonly EventRow[]): CreatedJourney[] {
  const byId = new Map<string, CreatedJourney>();
  for (const [id, journey] of created) {
    byId.set(id, {
      id,
      environmentId: journey.environmentId,
      entityType: journey.entityType,
      startedAtMs: journey.state.startedAtMs,
      lastEventAtMs: journey.state.lastEventAtMs,
      events: [],
    });
  }
  for (const row of rows) {
    byId.get(row.journey_id)?.events.push({
      id: row.id,
      operation: row.operation,
      name: row.name,
      service: row.service,
      timestampMs: row.ts_ms,
      receivedUs: row.received_us,
      durationMs: row.duration_ms,
      hasInput: row.has_input,
      hasOutput: row.has_output,
      hasError: row.has_error,
      input: row.input_payload,
      output: row.output_payload,
    });
  }
  return [...byId.values()];
}
