// SQL of a journey's events with payloads: one statement on events_timeline (migration 0002),
// in the timeline order of the event list (eventTimestamp, receivedAt, id in byte order).

import type { Queryable } from '../db/pool.ts';
import { epochMicrosSql } from './micros.ts';

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
  input_payload: unknown;
  output_payload: unknown;
}

export async function selectPayloadEvents(
  db: Queryable,
  projectId: string,
  journeyId: string,
  take: number,
): Promise<PayloadEventRecord[]> {
  const result = await db.query<PayloadEventRecord>(
    `SELECT id, operation, name, service, ${epochMicrosSql('event_timestamp')} AS event_timestamp_us, duration_ms,
            has_input, has_output, has_error, input_payload, output_payload
       FROM events
      WHERE project_id = $1 AND journey_id = $2
      ORDER BY event_timestamp, received_at, id COLLATE "C"
      LIMIT $3`,
    [projectId, journeyId, take],
  );
  return result.rows;
}
