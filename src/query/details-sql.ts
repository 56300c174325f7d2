// SQL of the journey and event reads (interface spec 4: Get journey, Get event). An API key's
// scope adds its environment; the admin token's scope is the whole project.

import type { Queryable } from '../db/pool.ts';
import { queryUnsorted } from './timeline-order.ts';
import { findingsJsonSql, type FindingView } from './findings-sql.ts';

export interface DetailScope {
  projectId: string;
  environmentId: string | null;
}

export interface JourneyRecord {
  id: string;
  environment: string;
  entity_type: string;
  entity_id_encrypted: string;
  status: string;
  label: string | null;
  last_step: string | null;
  failed_step: string | null;
  event_count: number;
  started_at: Date;
  last_event_at: Date;
  completed_at: Date | null;
  services: string[];
  findings: FindingView[];
}

export interface AliasRecord {
  id: number;
  alias_type: string;
  value_encrypted: string;
  displayable: boolean;
}

export interface EventRecord {
  id: string;
  journey_id: string;
  parent_event_id: string | null;
  trace_id: string | null;
  span_id: string | null;
  message_id: string | null;
  correlation_id: string | null;
  operation: string;
  name: string;
  service: string;
  event_timestamp: Date;
  received_at: Date;
  duration_ms: number | null;
  has_input: boolean;
  has_output: boolean;
  has_error: boolean;
  input_payload: unknown;
  output_payload: unknown;
  payload_diff: unknown;
  error: unknown;
  runtime_metadata: unknown;
  deployment_metadata: unknown;
  custom_metadata: unknown;
  stated_alias_ids: number[] | null;
}

/** Type in byte order, then first-stored order (event protocol 4.2). */
const ALIAS_ORDER = 'ORDER BY alias_type COLLATE "C", id';

export async function selectJourney(db: Queryable, scope: DetailScope, journeyId: string): Promise<JourneyRecord | null> {
  const result = await db.query<JourneyRecord>(
    `SELECT j.id, e.name AS environment, j.entity_type, j.entity_id_encrypted, j.status, j.label, j.last_step, j.failed_step,
            j.event_count, j.started_at, j.last_event_at, j.completed_at, j.services,
            ${findingsJsonSql(null)} AS findings
       FROM journeys j JOIN environments e ON e.project_id = j.project_id AND e.id = j.environment_id
      WHERE j.project_id = $1 AND j.id = $2 AND ($3::uuid IS NULL OR j.environment_id = $3)`,
    [scope.projectId, journeyId, scope.environmentId],
  );
  return result.rows[0] ?? null;
}

/** The given aliases of a journey (an event's stated aliases: at most 1,000, event protocol 2.2). */
export async function selectAliases(db: Queryable, projectId: string, journeyId: string, ids: number[]): Promise<AliasRecord[]> {
  const result = await db.query<AliasRecord>(
    `SELECT id, alias_type, value_encrypted, displayable FROM journey_aliases
      WHERE project_id = $1 AND journey_id = $2 AND id = ANY($3::int8[]) ${ALIAS_ORDER}`,
    [projectId, journeyId, ids],
  );
  return result.rows;
}

/**
 * A journey's first `take` aliases in read order, which journey_aliases_read_order (migration
 * 0029) serves in that order: a journey that gathered hundreds of thousands of aliases is read
 * `take` rows deep, not whole.
 */
export async function selectJourneyAliases(db: Queryable, projectId: string, journeyId: string, take: number): Promise<AliasRecord[]> {
  // Read in the index's order under the LIMIT whatever the statistics say: a journey that gained
  // its aliases since the last ANALYZE was otherwise read whole and sorted.
  return queryUnsorted<AliasRecord>(db, {
    text: `SELECT id, alias_type, value_encrypted, displayable FROM journey_aliases
      WHERE project_id = $1 AND journey_id = $2 ${ALIAS_ORDER} LIMIT $3`,
    values: [projectId, journeyId, take],
  });
}

export async function selectEvent(db: Queryable, scope: DetailScope, eventId: string): Promise<EventRecord | null> {
  const result = await db.query<EventRecord>(
    `SELECT id, journey_id, parent_event_id, trace_id, span_id, message_id, correlation_id, operation, name, service,
            event_timestamp, received_at, duration_ms, has_input, has_output, has_error, input_payload, output_payload,
            payload_diff, error, runtime_metadata, deployment_metadata, custom_metadata, stated_alias_ids
       FROM events
      -- event_ids names the event's day (migration 0017): one partition is probed, not all.
      WHERE project_id = $1 AND id = $2 AND ($3::uuid IS NULL OR environment_id = $3)
        AND received_at = (SELECT i.received_at FROM event_ids i WHERE i.project_id = $1 AND i.id = $2)`,
    [scope.projectId, eventId, scope.environmentId],
  );
  return result.rows[0] ?? null;
}
