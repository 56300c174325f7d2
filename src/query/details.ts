// Journey and event reads (interface spec 4; event protocol 10). Ingestion dry runs call these
// too, to show what a stored event and its journey would read back as.

import { decryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import { maskAliasValue } from '../protocol/alias-mask.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { MAX_DISPLAYABLE_ALIASES } from '../protocol/limits.ts';
import { selectAliases, selectEvent, selectJourney, selectJourneyAliases, type AliasRecord, type DetailScope } from './details-sql.ts';

export type { DetailScope };

export interface AliasView {
  type: string;
  displayValue: string | null;
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

/**
 * The journey read decrypts up to MAX_JOURNEY_ALIASES aliases here: the work gives the event loop
 * back every ALIASES_PER_SLICE so one such read does not stall every other request.
 */
const ALIASES_PER_SLICE = 1_000;

export async function aliasViews(keyring: Keyring, rows: readonly AliasRecord[]): Promise<AliasView[]> {
  const views: AliasView[] = [];
  for (let index = 0; index < rows.length; index++) {
    if (index > 0 && index % ALIASES_PER_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    views.push(aliasView(keyring, rows[index]!));
  }
  return views;
}

/**
 * Aliases the journey read lists: those of ten events stating the most aliases an event may
 * (1,000 each). A key may state 1,000 new aliases with every event, so a journey can gather
 * hundreds of thousands; listing them all took 6 s and a 12 MB answer at 200,000
 * (docs/operations.md, "Very long journeys"). Past it the read lists the first ones in read order
 * and says `aliasesTruncated`; search still finds the journey by every one of them.
 */
export const MAX_JOURNEY_ALIASES = 10 * MAX_DISPLAYABLE_ALIASES;

const ts = (value: Date | null) => (value === null ? null : formatTimestamp(value.getTime()));

export async function getJourneyDetail(db: Queryable, keyring: Keyring, scope: DetailScope, journeyId: string) {
  const row = await selectJourney(db, scope, journeyId);
  if (!row) return null;
  const aliases = await selectJourneyAliases(db, scope.projectId, journeyId, MAX_JOURNEY_ALIASES + 1);
  return {
    journeyId: row.id,
    environment: row.environment,
    entity: { type: row.entity_type, id: decryptField(keyring, row.entity_id_encrypted) },
    status: row.status,
    label: row.label,
    lastStep: row.last_step,
    failedStep: row.failed_step,
    aliases: await aliasViews(keyring, aliases.slice(0, MAX_JOURNEY_ALIASES)),
    aliasesTruncated: aliases.length > MAX_JOURNEY_ALIASES,
    services: row.services,
    eventCount: row.event_count,
    startedAt: formatTimestamp(row.started_at.getTime()),
    lastEventAt: formatTimestamp(row.last_event_at.getTime()),
    completedAt: ts(row.completed_at),
    findings: row.findings,
  };
}

export type JourneyDetail = NonNullable<Awaited<ReturnType<typeof getJourneyDetail>>>;

export async function getEventDetail(db: Queryable, keyring: Keyring, scope: DetailScope, eventId: string) {
  const row = await selectEvent(db, scope, eventId);
  if (!row) return null;
  let aliases: AliasView[] | null = null;
  if (row.stated_alias_ids !== null) {
    const stated = await selectAliases(db, scope.projectId, row.journey_id, row.stated_alias_ids);
    aliases = await aliasViews(keyring, stated);
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
