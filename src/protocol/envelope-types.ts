// The validated event's shape (event-protocol 2.2–2.3) and its class (3.2). Kept apart from
// the validator so that readers of stored events can use the types without the checks.

/** The eleven operations of 3.1; any other value is invalid_event. */
export const OPERATIONS = [
  'received', 'identified', 'transformed', 'validated', 'persisted', 'published',
  'consumed', 'delivered', 'failed', 'retried', 'completed',
] as const;
export type Operation = (typeof OPERATIONS)[number];

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface EventEntity { type: string; id: string }
export interface EventError { type?: string; message: string; code?: string; stack?: string }
export interface EventSdk { name: string; version: string; commit?: string }
export interface EventRuntime {
  language?: string; version?: string; hostname?: string; processId?: number; sdk?: EventSdk;
}
export interface EventDeployment { gitCommit?: string; version?: string; image?: string }

/**
 * A validated event: known fields only, optional ones absent when not sent (never undefined
 * or null-filled). Open objects keep every key, `__proto__` included, as own properties.
 */
export interface ValidEvent {
  id: string;
  journeyId: string;
  environment: string;
  service: string;
  entity: EventEntity;
  operation: Operation;
  name: string;
  /** As sent; the hash covers this spelling (`Z` and `+00:00` differ, section 7). */
  timestamp: string;
  /** The same instant in epoch ms, truncated (2.4). Derived: not part of the hash input. */
  timestampMs: number;
  aliases?: Record<string, string>;
  displayableAliases?: string[];
  journeyLabel?: string;
  durationMs?: number;
  parentEventId?: string;
  traceId?: string;
  spanId?: string;
  messageId?: string;
  correlationId?: string;
  /** Absent when not sent or sent as null (2.5). */
  input?: JsonValue;
  output?: JsonValue;
  error?: EventError;
  runtime?: EventRuntime;
  deployment?: EventDeployment;
  metadata?: JsonObject;
}

export type EventClass = 'failing' | 'completing' | 'clearing' | 'neutral';

/** 3.2: an error makes any event failing, whatever its operation. */
export function classifyEvent(event: { operation: string; error?: unknown }): EventClass {
  if ((event.error !== undefined && event.error !== null) || event.operation === 'failed') return 'failing';
  if (event.operation === 'completed') return 'completing';
  if (event.operation === 'retried') return 'clearing';
  return 'neutral';
}
