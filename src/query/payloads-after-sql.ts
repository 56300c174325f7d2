// SQL of the reads the incremental findings analyzer makes (docs/findings.md, "Incremental
// analysis"): a batch of journeys' events after a timeline position each, in timeline order and
// at most `take` per journey; how many events lie after each position; and a few events by their
// key. Positions travel as UTC text with microseconds both ways, so none is rounded.

import type { Queryable } from '../db/pool.ts';
import { epochMicrosSql } from './micros.ts';
import type { PayloadEventRecord } from './payloads-sql.ts';

/** A timeline key as UTC text to the microsecond (`YYYY-MM-DDThh:mm:ss.ffffff`). */
export interface TimelinePosition {
  timestamp: string;
  receivedAt: string;
  id: string;
}

export interface PositionedRecord extends PayloadEventRecord {
  journey_id: string;
  ts_text: string;
  received_text: string;
}

const POSITION_TEXT = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
const COLUMNS = `e.journey_id, e.id, e.operation, e.name, e.service, ${epochMicrosSql('e.event_timestamp')} AS event_timestamp_us, e.duration_ms,
            e.has_input, e.has_output, e.has_error, e.input_payload::text AS input_text, e.output_payload::text AS output_text,
            ${POSITION_TEXT('e.event_timestamp')} AS ts_text, ${POSITION_TEXT('e.received_at')} AS received_text`;
// Before every stored event when the journey has no position yet.
const AFTER = `(event_timestamp, received_at, id COLLATE "C") > (COALESCE(j.ts::timestamp AT TIME ZONE 'UTC', '-infinity'),
                   COALESCE(j.rec::timestamp AT TIME ZONE 'UTC', '-infinity'), COALESCE(j.eid, '') COLLATE "C")`;

type Start = { journeyId: string; after: TimelinePosition | null };
const positionArrays = (starts: readonly Start[]) => [
  starts.map((s) => s.journeyId),
  starts.map((s) => s.after?.timestamp ?? null),
  starts.map((s) => s.after?.receivedAt ?? null),
  starts.map((s) => s.after?.id ?? null),
];

/** Each journey's first `take` events after its position, in timeline order (journeys in id byte order). */
export async function selectPayloadEventsAfter(db: Queryable, projectId: string, starts: readonly Start[], take: number): Promise<PositionedRecord[]> {
  const result = await db.query<PositionedRecord>({
    name: 'journeys-payload-events-after',
    text: `SELECT ${COLUMNS}
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS j(id, ts, rec, eid)
       CROSS JOIN LATERAL (SELECT * FROM events
                            WHERE project_id = $1 AND journey_id = j.id AND ${AFTER}
                            ORDER BY event_timestamp, received_at, id COLLATE "C" LIMIT $6) e
      ORDER BY e.journey_id COLLATE "C", e.event_timestamp, e.received_at, e.id COLLATE "C"`,
    values: [projectId, ...positionArrays(starts), take],
  });
  return result.rows;
}

/** How many events each journey has after its position (an index range of the new events only). */
export async function countEventsAfter(db: Queryable, projectId: string, starts: readonly Start[]): Promise<Map<string, number>> {
  const result = await db.query<{ id: string; after: number }>({
    name: 'journeys-count-events-after',
    text: `SELECT j.id, (SELECT count(*) FROM events WHERE project_id = $1 AND journey_id = j.id AND ${AFTER})::int AS after
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS j(id, ts, rec, eid)`,
    values: [projectId, ...positionArrays(starts)],
  });
  return new Map(result.rows.map((row) => [row.id, row.after]));
}

/** Events by their key (id and arrival, which finds the partition), in no particular order. */
export async function selectPayloadEventsByKey(db: Queryable, projectId: string, keys: ReadonlyArray<{ id: string; receivedAt: string }>): Promise<PositionedRecord[]> {
  if (keys.length === 0) return [];
  const result = await db.query<PositionedRecord>({
    name: 'payload-events-by-key',
    text: `SELECT ${COLUMNS}
       FROM unnest($2::text[], $3::text[]) AS k(id, rec)
       JOIN events e ON e.project_id = $1 AND e.id = k.id AND e.received_at = k.rec::timestamp AT TIME ZONE 'UTC'`,
    values: [projectId, keys.map((k) => k.id), keys.map((k) => k.receivedAt)],
  });
  return result.rows;
}
