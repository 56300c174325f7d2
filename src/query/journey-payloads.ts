// A journey's events with their stored payloads, in timeline order, for reads that walk the
// whole journey at once (journey forensics). Same scope rule as the journey read: an API key
// sees its own environment only; a journey out of scope reads as null (the route answers 404).

import type { ReadScope } from '../auth/credentials.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { journeyInScope } from './events-sql.ts';
import { microsToMillis } from './micros.ts';

export type { TimelinePosition } from './payloads-after-sql.ts';
import { REDACTED } from '../protocol/redaction/redact.ts';
import { countEventsAfter, selectPayloadEventsAfter, selectPayloadEventsByKey, type PositionedRecord, type TimelinePosition } from './payloads-after-sql.ts';
import { selectPayloadEvents, selectPayloadEventsOfJourneys, selectPrunedPayloadEvents, type PayloadEventRecord, type PrunedPayloadRecord } from './payloads-sql.ts';

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
  /**
   * As stored by the capture mode (redacted values read `[REDACTED]`); null when not stored.
   * Each read of a whole-journey read's event parses the stored text again: keep the value
   * when it is needed twice.
   */
  readonly inputPayload: unknown;
  readonly outputPayload: unknown;
  /**
   * The stored JSON text when the read fetched it (undefined otherwise). Equal texts are equal
   * payloads, so a comparison can skip the walk; different texts may still be equal values.
   */
  readonly inputText?: string | null;
  readonly outputText?: string | null;
}

export interface JourneyPayloads {
  events: PayloadEvent[];
  /** True when the journey has more events than asked for: only the first ones are listed. */
  truncated: boolean;
}

type Metadata = Omit<PayloadEventRecord, 'input_text' | 'output_text'>;

function fields(row: Metadata) {
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
  };
}

/**
 * An event whose payloads are parsed from the stored text each time they are read, never kept:
 * a walk over a long journey then holds one step's values at a time, which the young
 * generation collects for free, instead of every payload of the journey until the answer is
 * sent (measured: most of the CPU of a 1,000-event read went to collecting them).
 */
class StoredPayloadEvent implements PayloadEvent {
  readonly id: string;
  readonly operation: string;
  readonly name: string;
  readonly service: string;
  readonly eventTimestamp: string;
  readonly durationMs: number | null;
  readonly hasInput: boolean;
  readonly hasOutput: boolean;
  readonly hasError: boolean;
  readonly inputText: string | null;
  readonly outputText: string | null;

  constructor(row: PayloadEventRecord) {
    const metadata = fields(row);
    this.id = metadata.id;
    this.operation = metadata.operation;
    this.name = metadata.name;
    this.service = metadata.service;
    this.eventTimestamp = metadata.eventTimestamp;
    this.durationMs = metadata.durationMs;
    this.hasInput = metadata.hasInput;
    this.hasOutput = metadata.hasOutput;
    this.hasError = metadata.hasError;
    this.inputText = row.input_text;
    this.outputText = row.output_text;
  }

  get inputPayload(): unknown {
    return this.inputText === null ? null : JSON.parse(this.inputText);
  }

  get outputPayload(): unknown {
    return this.outputText === null ? null : JSON.parse(this.outputText);
  }
}

/** The first `maxEvents` events of the journey in timeline order, or null when out of scope. */
export async function readJourneyPayloads(
  db: Pool,
  scope: ReadScope,
  journeyId: string,
  maxEvents: number,
): Promise<JourneyPayloads | null> {
  if (!(await journeyInScope(db, scope, journeyId))) return null;
  const rows = await selectPayloadEvents(db, scope.projectId, journeyId, maxEvents + 1);
  return { events: rows.slice(0, maxEvents).map((row) => new StoredPayloadEvent(row)), truncated: rows.length > maxEvents };
}

/**
 * readJourneyPayloads for several journeys of one project at once, for the whole project's scope
 * (the findings analyzer): a journey without events, or gone, is absent from the map.
 */
export async function readJourneysPayloads(
  db: Queryable,
  projectId: string,
  journeyIds: readonly string[],
  maxEvents: number,
): Promise<Map<string, JourneyPayloads>> {
  const rows = await selectPayloadEventsOfJourneys(db, projectId, journeyIds, maxEvents + 1);
  const byJourney = new Map<string, JourneyPayloads>();
  for (const row of rows) {
    let journey = byJourney.get(row.journey_id);
    if (journey === undefined) {
      journey = { events: [], truncated: false };
      byJourney.set(row.journey_id, journey);
    }
    if (journey.events.length < maxEvents) journey.events.push(new StoredPayloadEvent(row));
    else journey.truncated = true;
  }
  return byJourney;
}

/**
 * readJourneyPayloads with each payload pruned to one path of object keys: `{k1: {k2: value}}`
 * when the path is present, `{}` when it is not, `[REDACTED]` when a value on the path (the root
 * included) is the redaction marker, null when not stored. Walking the same path then reads what
 * the whole payload would give.
 */
export async function readJourneyPayloadsAt(
  db: Pool,
  scope: ReadScope,
  journeyId: string,
  keys: readonly string[],
  maxEvents: number,
): Promise<JourneyPayloads | null> {
  if (!(await journeyInScope(db, scope, journeyId))) return null;
  const rows = await selectPrunedPayloadEvents(db, scope.projectId, journeyId, keys, REDACTED, maxEvents + 1);
  const prune = (row: PrunedPayloadRecord, side: 'input' | 'output'): unknown => {
    if (!row[`${side}_stored`]) return null;
    if (row[`${side}_redacted`]) return REDACTED;
    if (!row[`${side}_present`]) return {};
    return keys.reduceRight<unknown>((value, key) => ({ [key]: value }), row[`${side}_value`]);
  };
  const events = rows.slice(0, maxEvents).map((row) => ({ ...fields(row), inputPayload: prune(row, 'input'), outputPayload: prune(row, 'output') }));
  return { events, truncated: rows.length > maxEvents };
}

/** An event of a whole-journey read with its timeline key (where a walk stopped, to go on from). */
export interface PositionedEvent {
  event: PayloadEvent;
  position: TimelinePosition;
}

const positioned = (row: PositionedRecord): PositionedEvent => ({
  event: new StoredPayloadEvent(row),
  position: { timestamp: row.ts_text, receivedAt: row.received_text, id: row.id },
});

/**
 * For the incremental findings analyzer: each journey's first `take` events after its position
 * (null: from the first), in timeline order, in the caller's transaction (which sets the snapshot
 * and plans the reads without a sort, timeline-order.ts). A journey without such events is absent.
 */
export async function readJourneysPayloadsAfter(
  db: Queryable,
  projectId: string,
  starts: ReadonlyArray<{ journeyId: string; after: TimelinePosition | null }>,
  take: number,
): Promise<Map<string, PositionedEvent[]>> {
  const byJourney = new Map<string, PositionedEvent[]>();
  if (starts.length === 0) return byJourney;
  for (const row of await selectPayloadEventsAfter(db, projectId, starts, take)) {
    let events = byJourney.get(row.journey_id);
    if (events === undefined) byJourney.set(row.journey_id, (events = []));
    events.push(positioned(row));
  }
  return byJourney;
}

/** How many events each journey has after its position. */
export async function countJourneysEventsAfter(db: Queryable, projectId: string, starts: ReadonlyArray<{ journeyId: string; after: TimelinePosition | null }>): Promise<Map<string, number>> {
  return starts.length === 0 ? new Map() : countEventsAfter(db, projectId, starts);
}

/** Events of a project by id and arrival (receivedAt as in a TimelinePosition), by id. */
export async function readPayloadEventsByKey(db: Queryable, projectId: string, keys: ReadonlyArray<{ id: string; receivedAt: string }>): Promise<Map<string, PositionedEvent>> {
  return new Map((await selectPayloadEventsByKey(db, projectId, keys)).map((row) => [row.id, positioned(row)]));
}
