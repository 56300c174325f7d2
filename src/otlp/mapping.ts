import { createHash } from 'node:crypto';
import type { OtlpRecord } from './records.ts';

/**
 * OTLP span or log record → event protocol 0.1 envelope (docs/otlp.md). The envelope is then
 * checked by the ingestion pipeline like any other, so nothing here validates: a wrong value
 * is passed on as it came and refused there with the usual codes and paths.
 */

export const ATTRIBUTES = {
  journeyId: 'jtrace.journey.id',
  entityType: 'jtrace.entity.type',
  entityId: 'jtrace.entity.id',
  operation: 'jtrace.operation',
  name: 'jtrace.name',
  eventId: 'jtrace.event.id',
  input: 'jtrace.input',
  output: 'jtrace.output',
  aliases: 'jtrace.aliases',
  displayableAliases: 'jtrace.displayable_aliases',
  journeyLabel: 'jtrace.journey.label',
  metadata: 'jtrace.metadata',
} as const;

/** The service of a resource without `service.name`, as OpenTelemetry SDKs name it. */
export const UNKNOWN_SERVICE = 'unknown_service';
/** Name of a log record's event when it carries no `jtrace.name`. */
export const DEFAULT_LOG_NAME = 'log';
/** Largest durationMs of the event protocol (2.2); a longer span is sent without one. */
const MAX_DURATION_MS = 2_147_483_647;
/** 9999-12-31T23:59:59.999Z: the last instant the event protocol accepts (2.4). */
const MAX_TIMESTAMP_MS = 253_402_300_799_999n;
const NANOS_PER_MS = 1_000_000n;

/** Ids are opaque strings in the protocol: a numeric OTel attribute is written as digits. */
function idValue(value: unknown): unknown {
  return typeof value === 'number' || typeof value === 'bigint' ? String(value) : value;
}

/**
 * OTel SDKs can only set scalars and arrays: objects arrive as a JSON string (or a kvlist).
 * A string that is not JSON text stays the string it was (a plain-text input, say).
 */
function jsonValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function timestamp(ns: bigint): string | undefined {
  if (ns <= 0n) return undefined;
  const ms = ns / NANOS_PER_MS;
  return ms > MAX_TIMESTAMP_MS ? undefined : new Date(Number(ms)).toISOString();
}

function durationMs(record: OtlpRecord): number | undefined {
  if (record.endNs === null || record.endNs < record.timeNs || record.timeNs <= 0n) return undefined;
  const ms = Number((record.endNs - record.timeNs) / NANOS_PER_MS);
  return ms <= MAX_DURATION_MS ? ms : undefined;
}

/**
 * A retried export must repeat the same event id, so the default id is derived from the
 * record: a span from its trace and span ids, a log record from a hash of all it carries.
 */
export function derivedEventId(record: OtlpRecord): string {
  if (record.signal === 'traces' && record.traceId !== '' && record.spanId !== '') return spanEventId(record.traceId, record.spanId);
  const digest = createHash('sha256')
    .update(JSON.stringify([record.signal, record.traceId, record.spanId, record.spanName ?? null, record.fingerprint]))
    .digest('hex');
  return `otel-${record.signal === 'traces' ? 'span' : 'log'}-${digest.slice(0, 48)}`;
}

/** Only records naming a journey become events; the rest are skipped, not refused. */
export function isJourneyRecord(record: OtlpRecord): boolean {
  return record.attributes.has(ATTRIBUTES.journeyId);
}

/** Drops undefined members so the pipeline sees absent fields, never `undefined` ones. */
function defined(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

export interface MappedEvent {
  eventId: unknown;
  envelope: { protocolVersion: '0.1'; event: Record<string, unknown> };
}

/** The envelope of one journey record; parentEventId is filled in by linkParents. */
export function mapRecord(record: OtlpRecord, environmentName: string): MappedEvent {
  const get = (name: string) => record.attributes.get(name);
  const eventId = get(ATTRIBUTES.eventId) !== undefined ? idValue(get(ATTRIBUTES.eventId)) : derivedEventId(record);
  const event = defined({
    id: eventId,
    journeyId: idValue(get(ATTRIBUTES.journeyId)),
    environment: environmentName,
    service: record.service ?? UNKNOWN_SERVICE,
    entity: defined({ type: get(ATTRIBUTES.entityType), id: idValue(get(ATTRIBUTES.entityId)) }),
    operation: get(ATTRIBUTES.operation),
    name: get(ATTRIBUTES.name) ?? record.spanName ?? DEFAULT_LOG_NAME,
    timestamp: timestamp(record.timeNs),
    durationMs: durationMs(record),
    traceId: record.traceId || undefined,
    spanId: record.spanId || undefined,
    error: record.error ?? undefined,
    input: jsonValue(get(ATTRIBUTES.input)),
    output: jsonValue(get(ATTRIBUTES.output)),
    aliases: jsonValue(get(ATTRIBUTES.aliases)),
    displayableAliases: jsonValue(get(ATTRIBUTES.displayableAliases)),
    journeyLabel: get(ATTRIBUTES.journeyLabel),
    metadata: jsonValue(get(ATTRIBUTES.metadata)),
  });
  return { eventId, envelope: { protocolVersion: '0.1', event } };
}

/** The event id a span gets when it sets no `jtrace.event.id` (derivedEventId with valid ids). */
function spanEventId(traceId: string, spanId: string): string {
  return `otel-span-${traceId}-${spanId}`;
}

/**
 * parentEventId names the parent span's event. A parent that is a journey record of the same
 * export gives its own event id (its `jtrace.event.id` when set). Any other parent was exported
 * earlier, or will be later, or carries no journey attributes: its event id is derived from the
 * trace and span ids alone, as the parent's own export derives it, so no read is needed. A parent
 * that never becomes an event leaves a parentEventId naming no stored event (docs/otlp.md).
 */
export function linkParents(records: OtlpRecord[], mapped: MappedEvent[]): void {
  const eventIdBySpan = new Map<string, unknown>();
  records.forEach((record, i) => {
    if (record.signal === 'traces' && record.spanId !== '') eventIdBySpan.set(`${record.traceId}/${record.spanId}`, mapped[i]!.eventId);
  });
  records.forEach((record, i) => {
    // A log record names a span it was written in, not a parent: only spans link.
    if (record.signal !== 'traces' || record.parentSpanId === '' || record.traceId === '') return;
    const key = `${record.traceId}/${record.parentSpanId}`;
    const parent = eventIdBySpan.has(key) ? eventIdBySpan.get(key) : spanEventId(record.traceId, record.parentSpanId);
    if (typeof parent === 'string') mapped[i]!.envelope.event.parentEventId = parent;
  });
}
