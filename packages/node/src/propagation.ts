// Carrying a journey from one service to the next: HTTP headers (plain objects, Node's
// IncomingHttpHeaders, fetch Headers), queue message attributes, or an envelope inside a JSON
// message. The peer protocol's carriers (src/protocol/peer-propagation.ts) are read as well, and
// written on request. Only the journey id, the entity and the sending event travel: aliases never do, so
// an identifier the host attached stays in the process that knew it.
import { codePointsOver } from './fit.ts';
import {
  ENTITY_FIELD_LENGTHS,
  EVENT_FIELD_LENGTHS,
  PEER_ATTRIBUTES,
  PEER_ENVELOPE_DATA_KEY,
  PEER_ENVELOPE_FIELDS,
  PEER_ENVELOPE_KEY,
  PEER_HEADERS,
  isPeerValue,
  isWellFormedText,
  readPeerContext,
} from './shared-rules.ts';
import type { Entity, JourneyContext, PropagationOptions } from './types.ts';

export const JOURNEY_HEADER = 'x-jtrace-journey-id';
export const ENTITY_HEADER = 'x-jtrace-entity';
export const PARENT_HEADER = 'x-jtrace-parent-event-id';
/** The key under which `wrapMessage` puts the context in a JSON message. */
export const ENVELOPE_KEY = 'jtrace';

/** What a journey exposes to propagation. */
export interface Propagatable {
  context(): JourneyContext;
  /** The recorder's `peerPropagation`: write the peer's carriers too unless a call says otherwise. */
  readonly peerPropagation?: boolean;
}

type HeaderTarget = Headers | Record<string, unknown>;
type HeaderSource = Headers | Record<string, unknown> | null | undefined;

function encodeEntity(entity: Entity): string {
  return `${encodeURIComponent(entity.type)};${encodeURIComponent(entity.id)}`;
}

function decodeEntity(text: string): Entity | null {
  const parts = text.split(';');
  if (parts.length !== 2) return null;
  const type = decodeText(parts[0] ?? '');
  const id = decodeText(parts[1] ?? '');
  if (type === null || id === null) return null;
  // What the server would refuse on every event of the journey is not taken up.
  if (!fits(type, ENTITY_FIELD_LENGTHS.type.max, false) || !fits(id, ENTITY_FIELD_LENGTHS.id.max, true)) return null;
  return { type, id };
}

/** Values are URI-encoded, so any id survives a header (no CR, LF or non-Latin-1 on the wire). */
function decodeText(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** 1 to `max` code points, well-formed, and without NUL unless the field may hold it. */
function fits(text: string, max: number, nulAllowed: boolean): boolean {
  return text !== '' && !codePointsOver(text, max) && isWellFormedText(text) && (nulAllowed || !text.includes('\u0000'));
}

function contextFields(journey: Propagatable): Record<string, string> | null {
  try {
    const ctx = journey.context();
    if (ctx.entity === undefined) return null;
    const fields: Record<string, string> = {
      [JOURNEY_HEADER]: encodeURIComponent(ctx.journeyId),
      [ENTITY_HEADER]: encodeEntity(ctx.entity),
    };
    if (ctx.parentEventId !== undefined) fields[PARENT_HEADER] = encodeURIComponent(ctx.parentEventId);
    return fields;
  } catch {
    // An id that cannot be encoded (an unpaired surrogate) is not carried.
    return null;
  }
}

/** The peer's carriers, under `names`: only values the peer would read (docs/sdk.md, "Mixed fleets"). */
function peerFields(journey: Propagatable, names: typeof PEER_HEADERS | typeof PEER_ATTRIBUTES): Record<string, string> {
  try {
    const ctx = journey.context();
    if (!isPeerValue(ctx.journeyId) || !ctx.journeyId.startsWith('jrn_')) return {};
    const fields: Record<string, string> = { [names.journeyId]: ctx.journeyId };
    if (ctx.entity !== undefined && isPeerValue(ctx.entity.type) && isPeerValue(ctx.entity.id)) {
      fields[names.entityType] = ctx.entity.type;
      fields[names.entityId] = ctx.entity.id;
    }
    return fields;
  } catch {
    return {};
  }
}

function wantsPeer(journey: Propagatable, options: PropagationOptions | undefined): boolean {
  try {
    const asked = options?.peer;
    return typeof asked === 'boolean' ? asked : journey.peerPropagation === true;
  } catch {
    return false;
  }
}

function isHeaders(value: unknown): value is Headers {
  return typeof Headers !== 'undefined' && value instanceof Headers;
}

/**
 * Adds the journey's headers to a plain object or a fetch `Headers`; returns the same object.
 * With `peer` (or the recorder's `peerPropagation`) the peer protocol's headers go too.
 */
export function injectHttpHeaders<T extends HeaderTarget>(headers: T, journey: Propagatable, options?: PropagationOptions): T {
  try {
    const fields = contextFields(journey);
    if (fields === null || headers === null || typeof headers !== 'object') return headers;
    if (wantsPeer(journey, options)) Object.assign(fields, peerFields(journey, PEER_HEADERS));
    for (const [name, value] of Object.entries(fields)) {
      if (isHeaders(headers)) headers.set(name, value);
      else (headers as Record<string, unknown>)[name] = value;
    }
  } catch {
    // A frozen object or a Proxy that refuses the write: the request goes without the journey.
  }
  return headers;
}

/** A string, the first string of a list, or an SQS attribute's `StringValue` (`stringValue` in Lambda events). */
function valueOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  if (value !== null && typeof value === 'object') {
    const attribute = value as { StringValue?: unknown; stringValue?: unknown };
    const text = attribute.StringValue ?? attribute.stringValue;
    return typeof text === 'string' ? text : undefined;
  }
  return undefined;
}

type Pick = (value: string | undefined) => string | undefined;

/** Reads `name` without case (headers) or with it (peer queue attributes), `pick` choosing the value. */
function readCarrier(source: HeaderSource, name: string, anyCase: boolean, pick: Pick = firstValue): string | undefined {
  if (source === null || source === undefined || typeof source !== 'object') return undefined;
  if (isHeaders(source)) return pick(source.get(name) ?? undefined);
  if (!anyCase) return Object.hasOwn(source, name) ? pick(valueOf(source[name])) : undefined;
  for (const key of Object.keys(source)) {
    if (key.toLowerCase() === name) return pick(valueOf(source[key]));
  }
  return undefined;
}

/** A header sent twice reads as "a, b"; encoded values hold no comma, so the first is the value. */
function firstValue(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.trim();
}

/**
 * The peer's header value: the part before a comma, without the spaces and tabs HTTP allows
 * around it, and nothing else removed (a CR stays, and makes the value unusable).
 */
function firstPeerValue(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** A peer attribute's value is taken whole. */
const wholeValue: Pick = (value) => value;

function readContext(source: HeaderSource): JourneyContext | null {
  const journeyText = readCarrier(source, JOURNEY_HEADER, true);
  const entityText = readCarrier(source, ENTITY_HEADER, true);
  if (journeyText === undefined || entityText === undefined) return null;
  const journeyId = decodeText(journeyText);
  if (journeyId === null || !fits(journeyId, EVENT_FIELD_LENGTHS.journeyId.max, false)) return null;
  const entity = decodeEntity(entityText);
  if (entity === null) return null;
  const parentText = readCarrier(source, PARENT_HEADER, true);
  const parentEventId = parentText === undefined ? null : decodeText(parentText);
  // A parent id the server would refuse is left off; the journey itself still continues.
  const parentOk = parentEventId !== null && fits(parentEventId, EVENT_FIELD_LENGTHS.parentEventId.max, false);
  return { journeyId, entity, ...(parentOk ? { parentEventId } : {}) };
}

/** The peer protocol's journey: its values are taken as they are, never percent-decoded. */
function readPeer(read: (name: string) => unknown): JourneyContext | null {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return readPeerContext(
    { journeyId: text(read('journeyId')), entityType: text(read('entityType')), entityId: text(read('entityId')) },
    EVENT_FIELD_LENGTHS.journeyId.max,
    ENTITY_FIELD_LENGTHS.type.max,
    ENTITY_FIELD_LENGTHS.id.max,
  );
}

function readPeerHeaders(source: HeaderSource): JourneyContext | null {
  return readPeer((field) => readCarrier(source, PEER_HEADERS[field as keyof typeof PEER_HEADERS], true, firstPeerValue));
}

/**
 * The journey carried by incoming headers, or null: pass it to `recorder.continueJourney({ context })`.
 * jtrace's own headers win; without them, the peer protocol's are read.
 */
export function extractHttpContext(headers: HeaderSource): JourneyContext | null {
  try {
    return readContext(headers) ?? readPeerHeaders(headers);
  } catch {
    return null;
  }
}

/**
 * Message attributes as queues take them (SQS, Pub/Sub, AMQP headers, Kafka headers as an
 * object), under the same names as the HTTP headers: string values, or with `format: 'sqs'`
 * SQS attribute values `{ DataType: 'String', StringValue }`.
 */
export function injectMessageAttributes<T extends Record<string, unknown>>(attributes: T, journey: Propagatable, options?: PropagationOptions): T {
  try {
    const fields = contextFields(journey);
    if (fields === null || attributes === null || typeof attributes !== 'object') return attributes;
    if (wantsPeer(journey, options)) Object.assign(fields, peerFields(journey, PEER_ATTRIBUTES));
    const sqs = options?.format === 'sqs';
    for (const [name, value] of Object.entries(fields)) {
      (attributes as Record<string, unknown>)[name] = sqs ? { DataType: 'String', StringValue: value } : value;
    }
  } catch {
    // A frozen object or a Proxy that refuses the write: the message goes without the journey.
  }
  return attributes;
}

/** Reads plain or SQS-shaped attributes: jtrace's names first, then the peer's attributes, then the peer's headers. */
export function extractMessageContext(attributes: Record<string, unknown> | null | undefined): JourneyContext | null {
  try {
    return (
      readContext(attributes) ??
      readPeer((field) => readCarrier(attributes, PEER_ATTRIBUTES[field as keyof typeof PEER_ATTRIBUTES], false, wholeValue)) ??
      readPeerHeaders(attributes)
    );
  } catch {
    return null;
  }
}

/** A JSON message carrying the journey beside its payload: `{ jtrace: {...}, payload }`. */
export function wrapMessage<T>(payload: T, journey: Propagatable): { [ENVELOPE_KEY]: Record<string, string>; payload: T } {
  return { [ENVELOPE_KEY]: contextFields(journey) ?? {}, payload };
}

/**
 * Opens a message made by `wrapMessage`, or the peer's `{ _wayscribe: {...}, data }`; a message
 * without either envelope comes back as its own payload.
 */
export function unwrapMessage<T = unknown>(message: unknown): { context: JourneyContext | null; payload: T } {
  try {
    if (message !== null && typeof message === 'object') {
      const record = message as Record<string, unknown>;
      if (Object.hasOwn(record, ENVELOPE_KEY) && Object.hasOwn(record, 'payload')) {
        const fields = record[ENVELOPE_KEY];
        const context = fields !== null && typeof fields === 'object' ? extractHttpContext(fields as Record<string, unknown>) : null;
        return { context, payload: record.payload as T };
      }
      const peer = Object.hasOwn(record, PEER_ENVELOPE_KEY) ? record[PEER_ENVELOPE_KEY] : undefined;
      if (peer !== null && typeof peer === 'object' && !Array.isArray(peer)) {
        const fields = peer as Record<string, unknown>;
        const read = (field: string) => (Object.hasOwn(fields, field) ? fields[field] : undefined);
        const context = readPeer((field) => read(PEER_ENVELOPE_FIELDS[field as keyof typeof PEER_ENVELOPE_FIELDS]));
        return { context, payload: record[PEER_ENVELOPE_DATA_KEY] as T };
      }
    }
  } catch {
    // A message that cannot be read (a Proxy) is handed back as it is.
  }
  return { context: null, payload: message as T };
}
