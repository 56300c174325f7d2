// SQL of a journey's events with payloads: one statement on events_timeline (migration 0002),
// in the timeline order of the event list (eventTimestamp, receivedAt, id in byte order).
// Payloads come as jsonb text, parsed only when a walk needs them. Two equal texts are two
// equal values, and jsonb writes keys in one order, so a value handed on unchanged reads as the
// same text: most comparisons of a long journey then need neither parsing nor walking. The reads
// of one journey merge the timeline index of each day in order and stop at their limit, however
// long the journey (timeline-order.ts).

import type { Pool, Queryable } from '../db/pool.ts';
import { epochMicrosSql } from './micros.ts';
import { queryInTimelineOrder, type OrderedQuery } from './timeline-order.ts';

export interface PayloadEventRecord {
  id: string;
  operation: string;
  name: string;
  service: string;
  event_timestamp_us: string;
  duration_ms: number | null;
  has_input: boolean;
  has_output: boolean;
  has_error: boolean;
  /** PostgreSQL's text of the stored jsonb; null when not stored. */
  input_text: string | null;
  output_text: string | null;
}

/** The statement of a journey's first `take` events with their payloads. */
function payloadEventsStatement(projectId: string, journeyId: string, take: number): OrderedQuery {
  return {
    text: `SELECT id, operation, name, service, ${epochMicrosSql('event_timestamp')} AS event_timestamp_us, duration_ms,
            has_input, has_output, has_error, input_payload::text AS input_text, output_payload::text AS output_text
       FROM events
      WHERE project_id = $1 AND journey_id = $2
      ORDER BY event_timestamp, received_at, id COLLATE "C"
      LIMIT $3`,
    values: [projectId, journeyId, take],
  };
}

export async function selectPayloadEvents(pool: Pool, projectId: string, journeyId: string, take: number): Promise<PayloadEventRecord[]> {
  return queryInTimelineOrder<PayloadEventRecord>(pool, payloadEventsStatement(projectId, journeyId, take));
}

/**
 * The first `take` events of each of several journeys of one project, in timeline order: one
 * statement for a batch of journeys (the findings analyzer reads a batch at a time).
 */
export async function selectPayloadEventsOfJourneys(
  db: Queryable,
  projectId: string,
  journeyIds: readonly string[],
  take: number,
): Promise<Array<PayloadEventRecord & { journey_id: string }>> {
  const result = await db.query<PayloadEventRecord & { journey_id: string }>({
    // Prepared once per connection: the analyzer sends it every batch, and planning it over every
    // partition of events was about a third of its cost (docs/benchmarks.md, Findings).
    name: 'journeys-payload-events',
    text: `SELECT e.journey_id, e.id, e.operation, e.name, e.service, ${epochMicrosSql('e.event_timestamp')} AS event_timestamp_us, e.duration_ms,
            e.has_input, e.has_output, e.has_error, e.input_payload::text AS input_text, e.output_payload::text AS output_text
       FROM unnest($2::text[]) AS j(id)
       CROSS JOIN LATERAL (SELECT * FROM events
                            WHERE project_id = $1 AND journey_id = j.id
                            ORDER BY event_timestamp, received_at, id COLLATE "C" LIMIT $3) e
      ORDER BY e.journey_id COLLATE "C", e.event_timestamp, e.received_at, e.id COLLATE "C"`,
    values: [projectId, journeyIds, take],
  });
  return result.rows;
}

export interface PrunedPayloadRecord extends Omit<PayloadEventRecord, 'input_text' | 'output_text'> {
  input_stored: boolean;
  output_stored: boolean;
  /** The value at the key path (null also when absent: see the `_present` flags). */
  input_value: unknown;
  output_value: unknown;
  input_present: boolean;
  output_present: boolean;
  /** A value on the key path, the root included, is the redaction marker. */
  input_redacted: boolean;
  output_redacted: boolean;
}

/**
 * Like selectPayloadEvents, but each payload read only at one path of object keys: a journey of
 * 1,000 events of 1 KB payloads then sends a few bytes per event instead of 2 KB.
 */
/** The statement of selectPrunedPayloadEvents. */
function prunedPayloadEventsStatement(projectId: string, journeyId: string, keys: readonly string[], redactedMarker: string, take: number): OrderedQuery {
  const side = (column: string, name: string) => `${column} IS NOT NULL AS ${name}_stored,
            ${column} #> $4::text[] AS ${name}_value, (${column} #> $4::text[]) IS NOT NULL AS ${name}_present,
            EXISTS (SELECT 1 FROM generate_series(0, cardinality($4::text[])) AS depth
                     WHERE ${column} #> ($4::text[])[1:depth] = to_jsonb($5::text)) AS ${name}_redacted`;
  return {
    text: `SELECT id, operation, name, service, ${epochMicrosSql('event_timestamp')} AS event_timestamp_us, duration_ms,
            has_input, has_output, has_error,
            ${side('input_payload', 'input')},
            ${side('output_payload', 'output')}
       FROM events
      WHERE project_id = $1 AND journey_id = $2
      ORDER BY event_timestamp, received_at, id COLLATE "C"
      LIMIT $3`,
    values: [projectId, journeyId, take, keys, redactedMarker],
  };
}

export async function selectPrunedPayloadEvents(
  pool: Pool,
  projectId: string,
  journeyId: string,
  keys: readonly string[],
  redactedMarker: string,
  take: number,
): Promise<PrunedPayloadRecord[]> {
  return queryInTimelineOrder<PrunedPayloadRecord>(pool, prunedPayloadEventsStatement(projectId, journeyId, keys, redactedMarker, take));
}
