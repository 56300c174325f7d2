// SQL of a journey's event list: keyset pages in timeline order (eventTimestamp, receivedAt,
// event id in byte order; event protocol 3.3), served by events_timeline (migration 0002).
// Events live in day partitions of received_at (migration 0017); the journey's first and last
// received_at, read from its event_ids rows (every event has one, written by the same
// statement), let PostgreSQL skip at run time the days the journey has no event in, instead
// of probing the timeline index of every day kept. A page is read with the index order merged
// across days, never sorted (timeline-order.ts): it reads the page, however long the journey.

import type { Pool, Queryable } from '../db/pool.ts';
import type { TimelinePosition } from './cursor.ts';
import { epochMicrosSql, microsText } from './micros.ts';
import { queryInTimelineOrder } from './timeline-order.ts';

export interface TimelineRecord {
  id: string;
  operation: string;
  name: string;
  service: string;
  event_timestamp_us: string;
  received_at_us: string;
  duration_ms: number | null;
  has_input: boolean;
  has_output: boolean;
  has_error: boolean;
  deployment_metadata: unknown;
}

/** True when the journey exists within the scope (an API key: its own environment only). */
export async function journeyInScope(
  db: Queryable,
  scope: { projectId: string; environmentId: string | null },
  journeyId: string,
): Promise<boolean> {
  const result = await db.query(
    `SELECT 1 FROM journeys WHERE project_id = $1 AND id = $2 AND ($3::uuid IS NULL OR environment_id = $3)`,
    [scope.projectId, journeyId, scope.environmentId],
  );
  return result.rowCount === 1;
}

/** The statement of one timeline page; exported so the benchmark can EXPLAIN it. */
export function timelineStatement(
  projectId: string,
  journeyId: string,
  after: TimelinePosition | null,
  take: number,
): { sql: string; values: unknown[] } {
  const values: unknown[] = [projectId, journeyId, take];
  let keyset = '';
  if (after !== null) {
    values.push(microsText(after.timestampUs), microsText(after.receivedAtUs), after.eventId);
    keyset = `AND (event_timestamp, received_at, id COLLATE "C") > ($4::timestamptz, $5::timestamptz, $6::text)`;
  }
  const sql = `SELECT id, operation, name, service, ${epochMicrosSql('event_timestamp')} AS event_timestamp_us,
          ${epochMicrosSql('received_at')} AS received_at_us, duration_ms, has_input, has_output, has_error, deployment_metadata
     FROM events
    WHERE project_id = $1 AND journey_id = $2 ${keyset}
      AND received_at >= (SELECT received_at FROM event_ids WHERE project_id = $1 AND journey_id = $2 ORDER BY received_at LIMIT 1)
      AND received_at <= (SELECT received_at FROM event_ids WHERE project_id = $1 AND journey_id = $2 ORDER BY received_at DESC LIMIT 1)
    ORDER BY event_timestamp, received_at, id COLLATE "C"
    LIMIT $3`;
  return { sql, values };
}

export async function selectTimelinePage(
  pool: Pool,
  projectId: string,
  journeyId: string,
  after: TimelinePosition | null,
  take: number,
): Promise<TimelineRecord[]> {
  const { sql, values } = timelineStatement(projectId, journeyId, after, take);
  return queryInTimelineOrder<TimelineRecord>(pool, { text: sql, values });
}
