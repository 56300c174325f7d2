// Carrying a journey from one service to the next: HTTP headers (plain objects, Node's
// IncomingHttpHeaders, fetch Headers), queue message attributes, or an envelope inside a JSON
// message. Only the journey id, the entity and the sending event travel: aliases never do, so
// an identifier the host attached stays in the process that knew it.
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
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return null;
  try {
    return { type: decodeURIComponent(parts[0] ?? ''), id: decodeURIComponent(parts[1] ?? '') };
  } catch {
    return null;
  }
}

function contextFields(journey: Propagatable): Record<string, string> | null {
  try {
    const ctx = journey.context();
    const fields: Record<string, string> = {
      [JOURNEY_HEADER]: ctx.journeyId,
      [ENTITY_HEADER]: encodeEntity(ctx.entity),
    };
    if (ctx.parentEventId !== undefined) fields[PARENT_HEADER] = ctx.parentEventId;
    return fields;
  } catch {
    return null;
  }
}

function isHeaders(value: unknown): value is Headers {
  return typeof Headers !== 'undefined' && value instanceof Headers;
}

/** Adds the journey's headers to a plain object or a fetch `Headers`; returns the same object. */
export function injectHttpHeaders<T extends HeaderTarget>(headers: T, journey: Propagatable): T {
  const fields = contextFields(journey);
  if (fields === null || headers === null || typeof headers !== 'object') return headers;
  for (const [name, value] of Object.entries(fields)) {
    if (isHeaders(headers)) headers.set(name, value);
    else (headers as Record<string, unknown>)[name] = value;
  }
  return headers;
}

function readHeader(source: HeaderSource, name: string): string | undefined {
  if (source === null || source === undefined || typeof source !== 'object') return undefined;
  if (isHeaders(source)) return source.get(name) ?? undefined;
  for (const key of Object.keys(source)) {
    if (key.toLowerCase() !== name) continue;
    const value = source[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  }
  return undefined;
}

function readContext(source: HeaderSource): JourneyContext | null {
  const journeyId = readHeader(source, JOURNEY_HEADER);
  const entityText = readHeader(source, ENTITY_HEADER);
  if (journeyId === undefined || journeyId === '' || entityText === undefined) return null;
  const entity = decodeEntity(entityText);
  if (entity === null) return null;
  const parentEventId = readHeader(source, PARENT_HEADER);
  return { journeyId, entity, ...(parentEventId ? { parentEventId } : {}) };
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
  const fields = contextFields(journey);
  if (fields !== null && attributes !== null && typeof attributes === 'object') Object.assign(attributes, fields);
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
  if (message !== null && typeof message === 'object' && Object.hasOwn(message, ENVELOPE_KEY) && Object.hasOwn(message, 'payload')) {
    const record = message as Record<string, unknown>;
    const fields = record[ENVELOPE_KEY];
    const context = fields !== null && typeof fields === 'object' ? extractHttpContext(fields as Record<string, unknown>) : null;
    return { context, payload: record.payload as T };
  }
  return { context: null, payload: message as T };
}
