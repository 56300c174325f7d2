// The kinds of search token (event-protocol 4.2): which value a token was made from. Ingestion
// writes them, search matches every kind, erasure matches the entity kinds only, and rotation
// must recompute every kind; naming them once here makes a new kind a type error in each of
// those places instead of a token that silently escapes rotation or erasure.

/** Every kind, in the order of the `search_tokens.kind` CHECK constraint (migration 0001). */
export const SEARCH_TOKEN_KINDS = [
  'entity_id',
  'alias',
  'journey_id',
  'trace_id',
  'span_id',
  'message_id',
  'correlation_id',
] as const;

export type SearchTokenKind = (typeof SEARCH_TOKEN_KINDS)[number];

/** Kinds that identify the entity itself: an erasure matches through these only. */
export const ENTITY_TOKEN_KINDS = ['entity_id', 'alias'] as const satisfies readonly SearchTokenKind[];

/**
 * Kinds made from one event field each, by the validated event's field name. The kind is also
 * the name of the `events` column that keeps the clear value.
 */
export const EVENT_FIELD_TOKEN_KINDS = {
  trace_id: 'traceId',
  span_id: 'spanId',
  message_id: 'messageId',
  correlation_id: 'correlationId',
} as const satisfies Partial<Record<SearchTokenKind, string>>;

export type EventFieldTokenKind = keyof typeof EVENT_FIELD_TOKEN_KINDS;

/** The event-field kinds as a list, in declaration order. */
export const EVENT_TOKEN_KINDS = Object.keys(EVENT_FIELD_TOKEN_KINDS) as EventFieldTokenKind[];

/**
 * Event-field kinds whose tokens are columns of the event's event_ids row (`trace_token`,
 * `span_token`, migration 0022) rather than search_tokens rows: a batch's most numerous tokens, nearly one
 * value per event. search_tokens rows of these kinds remain from before the migration.
 */
export const EVENT_COLUMN_TOKEN_KINDS = ['trace_id', 'span_id'] as const satisfies readonly EventFieldTokenKind[];

/** Event-field kinds still written as search_tokens rows. */
export const EVENT_ROW_TOKEN_KINDS = EVENT_TOKEN_KINDS.filter(
  (kind) => !(EVENT_COLUMN_TOKEN_KINDS as readonly string[]).includes(kind),
);
