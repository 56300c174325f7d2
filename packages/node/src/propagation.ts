// Carrying a journey from one service to the next: HTTP headers (plain objects, Node's
// IncomingHttpHeaders, fetch Headers), queue message attributes, or an envelope inside a JSON
// message. Only the journey id, the entity and the sending event travel: aliases never do, so
// an identifier the host attached stays in the process that knew it.
import { codePointsOver } from './fit.ts';
import { ENTITY_FIELD_LENGTHS, EVENT_FIELD_LENGTHS, isWellFormedText } from './shared-rules.ts';
import type { Entity, JourneyContext } from './types.ts';

export const JOURNEY_HEADER = 'x-jtrace-journey-id';
export const ENTITY_HEADER = 'x-jtrace-entity';
export const PARENT_HEADER = 'x-jtrace-parent-event-id';
/** The key under which `wrapMessage` puts the context in a JSON message. */
export const ENVELOPE_KEY = 'jtrace';

/** What a journey exposes to propagation. */
export interface Propagatable {
  context(): JourneyContext;
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

function isHeaders(value: unknown): value is Headers {
  return typeof Headers !== 'undefined' && value instanceof Headers;
}

/** Adds the journey's headers to a plain object or a fetch `Headers`; returns the same object. */
export function injectHttpHeaders<T extends HeaderTarget>(headers: T, journey: Propagatable): T {
  try {
    const fields = contextFields(journey);
    if (fields === null || headers === null || typeof headers !== 'object') return headers;
    for (const [name, value] of Object.entries(fields)) {
      if (isHeaders(headers)) headers.set(name, value);
      else (headers as Record<string, unknown>)[name] = value;
    }
  } catch {
    // A frozen object or a Proxy that refuses the write: the request goes without the journey.
  }
  return headers;
}

function readHeader(source: HeaderSource, name: string): string | undefined {
  if (source === null || source === undefined || typeof source !== 'object') return undefined;
  if (isHeaders(source)) return firstValue(source.get(name) ?? undefined);
  for (const key of Object.keys(source)) {
    if (key.toLowerCase() !== name) continue;
    const value = source[key];
    if (typeof value === 'string') return firstValue(value);
    if (Array.isArray(value) && typeof value[0] === 'string') return firstValue(value[0]);
  }
  return undefined;
}

/** A header sent twice reads as "a, b"; encoded values hold no comma, so the first is the value. */
function firstValue(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.trim();
}

function readContext(source: HeaderSource): JourneyContext | null {
  const journeyText = readHeader(source, JOURNEY_HEADER);
  const entityText = readHeader(source, ENTITY_HEADER);
  if (journeyText === undefined || entityText === undefined) return null;
  const journeyId = decodeText(journeyText);
  if (journeyId === null || !fits(journeyId, EVENT_FIELD_LENGTHS.journeyId.max, false)) return null;
  const entity = decodeEntity(entityText);
  if (entity === null) return null;
  const parentText = readHeader(source, PARENT_HEADER);
  const parentEventId = parentText === undefined ? null : decodeText(parentText);
  // A parent id the server would refuse is left off; the journey itself still continues.
  const parentOk = parentEventId !== null && fits(parentEventId, EVENT_FIELD_LENGTHS.parentEventId.max, false);
  return { journeyId, entity, ...(parentOk ? { parentEventId } : {}) };
}

/** The journey carried by incoming headers, or null: pass it to `recorder.continueJourney({ context })`. */
export function extractHttpContext(headers: HeaderSource): JourneyContext | null {
  try {
    return readContext(headers);
  } catch {
    return null;
  }
}

/**
 * Message attributes as queues take them (SQS, Pub/Sub, AMQP headers, Kafka headers as an
 * object): string values under the same names as the HTTP headers.
 */
export function injectMessageAttributes<T extends Record<string, unknown>>(attributes: T, journey: Propagatable): T {
  try {
    const fields = contextFields(journey);
    if (fields !== null && attributes !== null && typeof attributes === 'object') Object.assign(attributes, fields);
  } catch {
    // A frozen object or a Proxy that refuses the write: the message goes without the journey.
  }
  return attributes;
}

export function extractMessageContext(attributes: Record<string, unknown> | null | undefined): JourneyContext | null {
  return extractHttpContext(attributes);
}

/** A JSON message carrying the journey beside its payload: `{ jtrace: {...}, payload }`. */
export function wrapMessage<T>(payload: T, journey: Propagatable): { [ENVELOPE_KEY]: Record<string, string>; payload: T } {
  return { [ENVELOPE_KEY]: contextFields(journey) ?? {}, payload };
}

/** Opens a message made by `wrapMessage`; a message without the envelope comes back as its own payload. */
export function unwrapMessage<T = unknown>(message: unknown): { context: JourneyContext | null; payload: T } {
  try {
    if (message !== null && typeof message === 'object' && Object.hasOwn(message, ENVELOPE_KEY) && Object.hasOwn(message, 'payload')) {
      const record = message as Record<string, unknown>;
      const fields = record[ENVELOPE_KEY];
      const context = fields !== null && typeof fields === 'object' ? extractHttpContext(fields as Record<string, unknown>) : null;
      return { context, payload: record.payload as T };
    }
  } catch {
    // A message that cannot be read (a Proxy) is handed back as it is.
  }
  return { context: null, payload: message as T };
}
