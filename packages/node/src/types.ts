// Public types of @jtrace/node.

/** The 11 operations of event protocol 0.1 (3.1). */
export type Operation =
  | 'received'
  | 'identified'
  | 'transformed'
  | 'validated'
  | 'persisted'
  | 'published'
  | 'consumed'
  | 'delivered'
  | 'failed'
  | 'retried'
  | 'completed';

export interface Entity {
  type: string;
  id: string;
}

export type Aliases = Record<string, string>;

export type DiagnosticKind =
  | 'configuration_error'
  | 'event_rejected'
  | 'transport_error'
  | 'dropped'
  | 'breaker_opened'
  | 'unredacted_secret_name'
  | 'journey_id_not_derived'
  | 'internal_error';

export interface Diagnostic {
  kind: DiagnosticKind;
  message: string;
  detail?: Record<string, unknown>;
}

export type DropCause =
  | 'queue_full'
  | 'retry_exhausted'
  | 'request_refused'
  | 'shutdown'
  | 'disabled'
  | 'capture_failed';

export interface Counters {
  /** Events the host recorded (after shutdown too: those are dropped with cause `shutdown`). */
  recorded: number;
  /** Events the server accepted (duplicates included), or answered 2xx without a usable verdict. */
  sent: number;
  /** Events the server refused for good (a per-event verdict below 500). */
  rejected: number;
  /** Events given up on; `droppedByCause` says why. */
  dropped: number;
  droppedByCause: Record<DropCause, number>;
  /** Of `sent`: answered 2xx without a usable verdict, so not known to be stored (8.4). */
  unconfirmed: number;
  /** Waiting in the queue, and in the request under way. */
  queued: number;
  inFlight: number;
  /** Requests made, and whole requests that failed (network, timeout, 5xx). */
  requests: number;
  requestFailures: number;
  /** Per-event transient refusals resent (500 and above). */
  resent: number;
  breakerOpens: number;
}

export interface RecorderOptions {
  /** Base URL of the jtrace server, e.g. `https://jtrace.example.com`. */
  endpoint: string;
  /** A project-environment API key (`Authorization: Bearer …`). */
  apiKey: string;
  /** The service name on every event (1–128 characters). */
  serviceName: string;
  /** The environment the key belongs to (1–64 characters). */
  environment: string;
  /** false turns the recorder into a no-op that still runs the host's functions. Default true. */
  enabled?: boolean;
  /** Events per request, 1–100. Default 100. */
  batchSize?: number;
  /** Milliseconds between sends of a partial batch. Default 1,000. */
  flushIntervalMs?: number;
  /** Events kept waiting at most; the oldest is dropped beyond it. Default 10,000. */
  maxQueueSize?: number;
  /** Envelope JSON held at most, in characters (about bytes); beyond it the oldest is dropped. Default 64 MiB. */
  maxQueueBytes?: number;
  /** Milliseconds one request may take before it counts as failed. Default 10,000. */
  requestTimeoutMs?: number;
  /** Consecutive failed requests that open the circuit breaker. Default 5. */
  breakerThreshold?: number;
  /** Milliseconds the breaker stays open before one trial request. Default 30,000. */
  breakerCooldownMs?: number;
  /** Milliseconds before an event refused with 500 or above is resent, times its sends so far. Default 500. */
  resendDelayMs?: number;
  /** Largest envelope in UTF-8 bytes; set it to the server's MAX_EVENT_PAYLOAD_BYTES. Default 262,144. */
  maxEventBytes?: number;
  /** Operator redaction rules (protocol 5.5) applied in process, besides the built-in names. */
  redactionPaths?: string[];
  /** Send `error.stack` (masked by shape); the server keeps it only under full capture. Default false. */
  captureStack?: boolean;
  /** Secret of 32 bytes or more: journey ids derived from the entity (protocol 4.6). Default: random ids. */
  journeyIdSecret?: string;
  /** Sent as `deployment` on every event. */
  deployment?: { gitCommit?: string; version?: string; image?: string };
  /** Receives every diagnostic. Default: a rate-limited `console.warn`. */
  onDiagnostic?: (diagnostic: Diagnostic) => void;
  /** An `@opentelemetry/api` module to read the active span from; found automatically when installed. */
  openTelemetry?: OpenTelemetryApi | null;
  /** Also write the peer protocol's carriers (`x-wayscribe-*`) when injecting. Default false. */
  peerPropagation?: boolean;
  /** Replaces global fetch (tests, proxies). */
  fetch?: typeof fetch;
}

/** The part of `@opentelemetry/api` the recorder reads. */
export interface OpenTelemetryApi {
  trace: { getActiveSpan(): { spanContext(): { traceId: string; spanId: string } } | undefined };
}

export interface RecordFields {
  operation: Operation;
  name: string;
  input?: unknown;
  output?: unknown;
  error?: unknown;
  metadata?: Record<string, unknown>;
  aliases?: Aliases;
  displayableAliases?: string[];
  durationMs?: number;
  timestamp?: Date | string;
  parentEventId?: string;
  messageId?: string;
  correlationId?: string;
}

export interface StepOptions {
  /** Attempt number; above 1 the step is recorded as `retried` with `metadata.attempt`. */
  attempt?: number;
  metadata?: Record<string, unknown>;
  messageId?: string;
  correlationId?: string;
}

/** Options of the step wrappers (`receive`, `transform`, … `deliver`). */
export interface WrapOptions<I = unknown, O = unknown> extends StepOptions {
  /** What to store of the input instead of all of it; the host's function still gets its own value. */
  captureInput?: (input: I) => unknown;
  /** What to store of the output (the awaited value of a promise); the host still gets its own value. */
  captureOutput?: (output: Awaited<O>) => unknown;
  /**
   * A result that is a failure without throwing (an HTTP 500 answer, `{ ok: false }`): return a
   * reason (or true) and the step is recorded with an error of type `ResultFailure`, failing the journey.
   */
  isFailure?: (output: Awaited<O>) => string | boolean | null | undefined;
}

export interface FinishOptions extends StepOptions {
  /** The step's name. Default `complete` (or `failed` with status `failed`). */
  name?: string;
  /** `failed` records a terminal failure (operation `failed`) instead of `completed`. Default `completed`. */
  status?: 'completed' | 'failed';
  /** With status `failed`: the error recorded (an Error, a string, or `{ type, message, code }`). */
  error?: unknown;
}

/**
 * What propagation carries: never aliases, never payloads. A context read from the peer
 * protocol's carriers has no `entity` when the peer sent none (or an unusable one): give
 * `continueJourney` an `entity` to record with.
 */
export interface JourneyContext {
  journeyId: string;
  entity?: Entity;
  parentEventId?: string;
}

/** Per call: `peer` also writes the peer protocol's carriers; `format: 'sqs'` writes SQS attribute values. */
export interface PropagationOptions {
  peer?: boolean;
  format?: 'plain' | 'sqs';
}

export interface StartJourneyOptions {
  entity: Entity;
  label?: string;
  aliases?: Aliases;
  displayableAliases?: string[];
  /** Use this id instead of generating one. */
  journeyId?: string;
}

/**
 * `entity` beside a context is used when the context carries none (a peer service sent only the
 * journey id); a context's own entity wins. `label` is sent on the journey's next event.
 */
export type ContinueJourneyOptions =
  | { journeyId: string; entity: Entity; context?: undefined; label?: string }
  | { context: JourneyContext | null | undefined; journeyId?: undefined; entity?: Entity; label?: string };
