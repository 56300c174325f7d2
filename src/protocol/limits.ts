// Every ingestion limit of event protocol 0.1 in one place. Server and SDK-facing docs quote
// these numbers, so each is a named constant with its unit and the reason it exists.

/** The only protocol version this server speaks (2.1). */
export const PROTOCOL_VERSION = '0.1';
/** Code points; a longer `protocolVersion` is invalid_event rather than unsupported (2.1). */
export const PROTOCOL_VERSION_MAX_LENGTH = 16;

/** Envelopes per batch request; more is a whole-request 400 payload_too_large (1.5, 9.1). */
export const MAX_BATCH_EVENTS = 100;

/**
 * Levels below the envelope root (envelope 0, `event` 1, `input` 2), so a payload keeps 30 of
 * its own (9.1). Bounds every recursive walk done later (hash, capture, diff, storage).
 */
export const MAX_DEPTH = 32;
/** Keys per object or elements per array (9.1): bounds per-node work and index sizes. */
export const MAX_WIDTH = 1_000;
/** UTF-16 units per string value, keys not counted (9.1); SDKs truncate to this. */
export const MAX_STRING_UNITS = 65_536;

/** Bytes of the re-serialized envelope (UTF-8) when MAX_EVENT_PAYLOAD_BYTES is unset (9.1). */
export const DEFAULT_MAX_EVENT_PAYLOAD_BYTES = 262_144;
/** Bytes; the smallest allowed MAX_EVENT_PAYLOAD_BYTES: a minimal event must still fit (9.1, 12.11). */
export const MIN_MAX_EVENT_PAYLOAD_BYTES = 1_024;
/** Bytes; the largest allowed MAX_EVENT_PAYLOAD_BYTES: keeps a full batch body near 100 MiB (9.1). */
export const MAX_MAX_EVENT_PAYLOAD_BYTES = 1_048_576;
/** Bytes of batch framing allowed on top of 100 maximal envelopes (9.1). */
export const REQUEST_BODY_OVERHEAD_BYTES = 65_536;

/** Request body limit in bytes for both routes: 100 × per-event limit + 65,536 (9.1). */
export function requestBodyLimitBytes(maxEventPayloadBytes: number): number {
  return MAX_BATCH_EVENTS * maxEventPayloadBytes + REQUEST_BODY_OVERHEAD_BYTES;
}

/** An inclusive length range in code points (2.2: "0–n" allows the empty string). */
export interface LengthRange {
  readonly min: number;
  readonly max: number;
}

const range = (min: number, max: number): LengthRange => Object.freeze({ min, max });

/** Top-level event string fields, code points (2.2). Sized to fit indexed text columns. */
export const EVENT_FIELD_LENGTHS = Object.freeze({
  id: range(1, 128),
  journeyId: range(1, 128),
  environment: range(1, 64),
  service: range(1, 128),
  name: range(1, 256),
  journeyLabel: range(1, 200),
  parentEventId: range(0, 128),
  traceId: range(0, 128),
  spanId: range(0, 128),
  messageId: range(0, 256),
  correlationId: range(0, 256),
});

/** `entity` fields, code points (2.3); the id is long enough for composite external ids. */
export const ENTITY_FIELD_LENGTHS = Object.freeze({
  type: range(1, 128),
  id: range(1, 512),
});

/** `error` fields, code points (2.3); SDKs cut messages at 4,096 with `[TRUNCATED]`. */
export const ERROR_FIELD_LENGTHS = Object.freeze({
  type: range(0, 256),
  message: range(1, 4_096),
  code: range(0, 256),
  stack: range(0, 16_384),
});

/** `runtime` string fields, code points (2.3). */
export const RUNTIME_FIELD_LENGTHS = Object.freeze({
  language: range(0, 64),
  version: range(0, 64),
  hostname: range(0, 256),
});

/** `runtime.sdk` fields, code points (2.3); a nameless SDK is useless for support. */
export const SDK_FIELD_LENGTHS = Object.freeze({
  name: range(1, 128),
  version: range(1, 64),
  commit: range(1, 128),
});

/** `deployment` fields, code points (2.3). */
export const DEPLOYMENT_FIELD_LENGTHS = Object.freeze({
  gitCommit: range(0, 128),
  version: range(0, 128),
  image: range(0, 512),
});

/** Alias type (the key), code points (2.2); SDKs replace longer keys with `[KEY_TOO_LONG]`. */
export const ALIAS_TYPE_LENGTH = range(0, 128);
/** Alias value, code points (2.2); stored encrypted, so bounded like entity.id. */
export const ALIAS_VALUE_LENGTH = range(0, 512);
/** Items of `displayableAliases` (2.2); an event can name at most this many types. */
export const MAX_DISPLAYABLE_ALIASES = 1_000;
/** Each `displayableAliases` item, code points: it names an alias type (2.2). */
export const DISPLAYABLE_ALIAS_LENGTH = ALIAS_TYPE_LENGTH;
/** `metadata` key, code points (2.2). */
export const METADATA_KEY_LENGTH = range(0, 128);

/**
 * invalid_event details reported per event. The protocol asks for one per problem; past this
 * many the message gives the remaining count instead, so that a batch of pathological events
 * (a thousand 1e400 numbers each) cannot make a response many times larger than its request.
 */
export const MAX_VALIDATION_DETAILS = 100;

/** Milliseconds; the largest PostgreSQL int4, the column type of durationMs (2.2). */
export const MAX_DURATION_MS = 2_147_483_647;

/** UTC years a timestamp may fall in (2.4, 12.3): four-digit years keep the written form fixed. */
export const MIN_TIMESTAMP_YEAR = 1;
export const MAX_TIMESTAMP_YEAR = 9_999;

/** payloadDiff: changes kept before `truncated` (section 6); keeps stored diffs small. */
export const MAX_DIFF_CHANGES = 500;
/** payloadDiff: deepest change path, root = 0 (section 6); replay responses are not depth-checked. */
export const MAX_DIFF_DEPTH = 32;

/** Alias mask: code points kept at the start and end of a masked value (4.3, 12.2). */
export const MASK_HEAD_CODE_POINTS = 4;
export const MASK_TAIL_CODE_POINTS = 3;
/** Values of this many code points or fewer mask to `…` alone: head + tail would reveal most of them. */
export const MASK_HIDE_ALL_MAX_CODE_POINTS = 8;
/** The mask separator, U+2026 HORIZONTAL ELLIPSIS (4.3). */
export const MASK_ELLIPSIS = '\u2026';
