import { decryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import { maskAliasValue } from '../ingest/aliases.ts';
import { formatTimestamp } from '../ingest/timestamp.ts';

/** What a reader may see: a project, and for an API key one environment of it. */
export interface DetailScope {
  projectId: string;
  environmentId: string | null;
}

export interface AliasView {
  type: string;
  displayValue: string | null;
  displayable: boolean;
}

interface AliasRecord {
  id: number;
  alias_type: string;
  value_encrypted: string;
  displayable: boolean;
}

/** Masking is applied at read time from the journey's current flag (event protocol 4.3). */
function aliasView(keyring: Keyring, row: AliasRecord): AliasView {
  const value = decryptField(keyring, row.value_encrypted);
  return {
    type: row.alias_type,
    displayValue: value === null ? null : row.displayable ? value : maskAliasValue(value),
    displayable: row.displayable,
  };
}

/** Type in byte order, then first-stored order. */
const ALIAS_ORDER = 'ORDER BY alias_type COLLATE "C", id';

const ts = (value: Date | null) => (value === null ? null : formatTimestamp(value.getTime()));

export async function getJourneyDetail(db: Queryable, keyring: Keyring, scope: DetailScope, journeyId: string) {
  const result = await db.query<{
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
  }>(
    `SELECT j.id, e.name AS environment, j.entity_type, j.entity_id_encrypted, j.status, j.label, j.last_step, j.failed_step,
            j.event_count, j.started_at, j.last_event_at, j.completed_at, j.services
       FROM journeys j JOIN environments e ON e.project_id = j.project_id AND e.id = j.environment_id
      WHERE j.project_id = $1 AND j.id = $2 AND ($3::uuid IS NULL OR j.environment_id = $3)`,
    [scope.projectId, journeyId, scope.environmentId],
  );
  const row = result.rows[0];
  if (!row) return null;
  const aliases = await db.query<AliasRecord>(
    `SELECT id, alias_type, value_encrypted, displayable FROM journey_aliases WHERE project_id = $1 AND journey_id = $2 ${ALIAS_ORDER}`,
    [scope.projectId, journeyId],
  );
  return {
    journeyId: row.id,
    environment: row.environment,
    entity: { type: row.entity_type, id: decryptField(keyring, row.entity_id_encrypted) },
    status: row.status,
    label: row.label,
    lastStep: row.last_step,
    failedStep: row.failed_step,
    aliases: aliases.rows.map((alias) => aliasView(keyring, alias)),
    services: row.services,
    eventCount: row.event_count,
    startedAt: formatTimestamp(row.started_at.getTime()),
    lastEventAt: formatTimestamp(row.last_event_at.getTime()),
    completedAt: ts(row.completed_at),
  };
}

export type JourneyDetail = NonNullable<Awaited<ReturnType<typeof getJourneyDetail>>>;

interface EventRecord {
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

export async function getEventDetail(db: Queryable, keyring: Keyring, scope: DetailScope, eventId: string) {
  const result = await db.query<EventRecord>(
    `SELECT id, journey_id, parent_event_id, trace_id, span_id, message_id, correlation_id, operation, name, service,
            event_timestamp, received_at, duration_ms, has_input, has_output, has_error, input_payload, output_payload,
            payload_diff, error, runtime_metadata, deployment_metadata, custom_metadata, stated_alias_ids
       FROM events WHERE project_id = $1 AND id = $2 AND ($3::uuid IS NULL OR environment_id = $3)`,
    [scope.projectId, eventId, scope.environmentId],
  );
  const row = result.rows[0];
  if (!row) return null;
  let aliases: AliasView[] | null = null;
  if (row.stated_alias_ids !== null) {
    const stated = await db.query<AliasRecord>(
      `SELECT id, alias_type, value_encrypted, displayable FROM journey_aliases
        WHERE project_id = $1 AND journey_id = $2 AND id = ANY($3::int8[]) ${ALIAS_ORDER}`,
      [scope.projectId, row.journey_id, row.stated_alias_ids],
    );
    aliases = stated.rows.map((alias) => aliasView(keyring, alias));
  }
  return {
    id: row.id,
    journeyId: row.journey_id,
    parentEventId: row.parent_event_id,
    traceId: row.trace_id,
    spanId: row.span_id,
    messageId: row.message_id,
    correlationId: row.correlation_id,
    operation: row.operation,
    name: row.name,
    service: row.service,
    eventTimestamp: formatTimestamp(row.event_timestamp.getTime()),
    receivedAt: formatTimestamp(row.received_at.getTime()),
    durationMs: row.duration_ms,
    hasInput: row.has_input,
    hasOutput: row.has_output,
    hasError: row.has_error,
    inputPayload: row.input_payload,
    outputPayload: row.output_payload,
    payloadDiff: row.payload_diff,
    error: row.error,
    runtimeMetadata: row.runtime_metadata,
    deploymentMetadata: row.deployment_metadata,
    customMetadata: row.custom_metadata,
    aliases,
  };
}

export type EventDetail = NonNullable<Awaited<ReturnType<typeof getEventDetail>>>;
