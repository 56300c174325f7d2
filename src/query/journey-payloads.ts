// A journey's events with their stored payloads, in timeline order, for reads that walk the
// whole journey at once (journey forensics). Same scope rule as the journey read: an API key
// sees its own environment only; a journey out of scope reads as null (the route answers 404).

import type { ReadScope } from '../auth/credentials.ts';
import type { Queryable } from '../db/pool.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { journeyInScope } from './events-sql.ts';
import { microsToMillis } from './micros.ts';
import { selectPayloadEvents, type PayloadEventRecord } from './payloads-sql.ts';

export interface PayloadEvent {
  id: string;
  operation: string;
  name: string;
  service: string;
  eventTimestamp: string;
  durationMs: number | null;
  hasInput: boolean;
  hasOutput: boolean;
  hasError: boolean;
  /** As stored by the capture mode (redacted values read `[REDACTED]`); null when not stored. */
  inputPayload: unknown;
  outputPayload: unknown;
}

export interface JourneyPayloads {
  events: PayloadEvent[];
  /** True when the journey has more events than asked for: only the first ones are listed. */
  truncated: boolean;
}

function toEvent(row: PayloadEventRecord): PayloadEvent {
  return {
    id: row.id,
    operation: row.operation,
    name: row.name,
    service: row.service,
    eventTimestamp: formatTimestamp(microsToMillis(BigInt(row.event_timestamp_us))),
    durationMs: row.duration_ms,
    hasInput: row.has_input,
    hasOutput: row.has_output,
    hasError: row.has_error,
    inputPayload: row.input_payload,
    outputPayload: row.output_payload,
  };
}

/** The first `maxEvents` events of the journey in timeline order, or null when out of scope. */
export async function readJourneyPayloads(
  db: Queryable,
  scope: ReadScope,
  journeyId: string,
  maxEvents: number,
): Promise<JourneyPayloads | null> {
  if (!(await journeyInScope(db, scope, journeyId))) return null;
  const rows = await selectPayloadEvents(db, scope.projectId, journeyId, maxEvents + 1);
  return { events: rows.slice(0, maxEvents).map(toEvent), truncated: rows.length > maxEvents };
}
