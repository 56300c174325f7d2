// A journey's event list (interface spec 4, "List journey events"): keyset pages of event rows
// in ascending timeline order (decisions.md, HTTP details).

import type { ReadScope } from '../auth/credentials.ts';
import type { Pool } from '../db/pool.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { encodeTimelineCursor } from './cursor.ts';
import { journeyInScope, selectTimelinePage, type TimelineRecord } from './events-sql.ts';
import { keysetPage, type Page } from './page.ts';
import { microsToMillis } from './micros.ts';
import type { TimelineParams } from './params.ts';

/** Interface spec section 2, "Journey event row": every item carries all eleven fields. */
export interface JourneyEventRow {
  id: string;
  operation: string;
  name: string;
  service: string;
  eventTimestamp: string;
  receivedAt: string;
  durationMs: number | null;
  hasInput: boolean;
  hasOutput: boolean;
  hasError: boolean;
  deploymentMetadata: unknown;
}

function toRow(row: TimelineRecord): JourneyEventRow {
  return {
    id: row.id,
    operation: row.operation,
    name: row.name,
    service: row.service,
    eventTimestamp: formatTimestamp(microsToMillis(BigInt(row.event_timestamp_us))),
    receivedAt: formatTimestamp(microsToMillis(BigInt(row.received_at_us))),
    durationMs: row.duration_ms,
    hasInput: row.has_input,
    hasOutput: row.has_output,
    hasError: row.has_error,
    deploymentMetadata: row.deployment_metadata ?? null,
  };
}

/** null when the journey is not in the caller's scope (the route answers 404). */
export async function listJourneyEvents(
  pool: Pool,
  scope: ReadScope,
  journeyId: string,
  params: TimelineParams,
): Promise<Page<JourneyEventRow> | null> {
  if (!(await journeyInScope(pool, scope, journeyId))) return null;
  const rows = await selectTimelinePage(pool, scope.projectId, journeyId, params.after, params.limit + 1);
  return keysetPage(rows, params.limit, toRow, (last) =>
    encodeTimelineCursor({
      timestampUs: BigInt(last.event_timestamp_us),
      receivedAtUs: BigInt(last.received_at_us),
      eventId: last.id,
    }),
  );
}
