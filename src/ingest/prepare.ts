import { contentHash, type StoredContentHash } from '../crypto/content-hash.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { ErrorCode, ErrorDetail } from '../http/errors.ts';
import { canonicalEventJson } from '../protocol/canonical-json.ts';
import { applyCapture, type CapturableEvent, type CaptureResult, type CaptureSettings } from './capture/capture.ts';
import { classifyEvent, validateEnvelope, type ValidEvent } from '../protocol/envelope.ts';
import { computePayloadDiff, type PayloadDiff } from '../protocol/payload-diff.ts';
import { findUnstorable, findUnstorableEventValue } from '../protocol/storability.ts';
import { inspectEnvelope } from '../protocol/structural-limits.ts';

/**
 * Everything of ingestion that needs no database (event protocol 2.7 steps 1 to 6), done in
 * memory per event so that a batch reaches the database as a few set-based statements.
 */

/** A per-event refusal (event-protocol 9.3); its HTTP status is ERROR_STATUS[code]. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
}

export interface PreparedEvent {
  event: ValidEvent;
  hash: StoredContentHash;
  canonical: string;
  capture: CaptureResult;
  payloadDiff: PayloadDiff | null;
  /** Path of a value that cannot be stored; refused only after the duplicate check (2.7). */
  unstorablePath: string | null;
}

export type Preparation =
  | { ok: true; prepared: PreparedEvent }
  | { ok: false; refusal: Refusal; eventId: string | null };

export interface PrepareContext {
  keyring: Keyring;
  environmentName: string;
  capture: CaptureSettings;
  allowFullPayloadCapture: boolean;
  maxEventPayloadBytes: number;
}

/** 8.1: a rejected result carries the sent id when it is a string of 1 to 128 units. */
export function readableEventId(envelope: unknown): string | null {
  const event = (envelope as { event?: unknown } | null)?.event;
  const id = typeof event === 'object' && event !== null ? (event as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id.length >= 1 && [...id].length <= 128 ? id : null;
}

function refuse(envelope: unknown, code: ErrorCode, message: string, details?: ErrorDetail[]): Preparation {
  return {
    ok: false,
    eventId: readableEventId(envelope),
    refusal: { code, message, ...(details && details.length > 0 ? { details } : {}) },
  };
}

export function prepareEvent(envelope: unknown, ctx: PrepareContext): Preparation {
  // One walk checks the limits, measures the size and tells whether any text is unstorable.
  const { refusal: structural, storableText } = inspectEnvelope(envelope, ctx.maxEventPayloadBytes);
  if (structural !== null) return refuse(envelope, structural.code, structural.message, structural.details);

  // The envelope is the request's own parsed body (or an in-process copy nobody changes later).
  const validated = validateEnvelope(envelope, { sharePayloads: true });
  if (!validated.ok) return refuse(envelope, validated.code, validated.message, validated.details);
  const event = validated.event;

  if (event.environment !== ctx.environmentName) {
    return refuse(envelope, 'unauthorized_environment', "The event names an environment this key cannot write to.", [
      { path: 'event.environment', message: 'not the environment of the API key' },
    ]);
  }

  // The ids are looked up before anything is stored; one that can never be stored cannot match a
  // stored event either, so it is refused here rather than reach the lookups (PostgreSQL rejects
  // NUL in a text parameter and would replace an unpaired surrogate).
  if (!storableText) {
    for (const [path, value] of [['event.id', event.id], ['event.journeyId', event.journeyId]] as const) {
      if (findUnstorable(value, path) !== null) {
        return { ok: false, eventId: readableEventId(envelope), refusal: unstorableRefusal(path) };
      }
    }
  }

  const canonical = canonicalEventJson(event);
  // The validated runtime/deployment objects are plain records; capture reads them as such.
  const capture = applyCapture(event as unknown as CapturableEvent, ctx.capture, ctx.allowFullPayloadCapture);
  const payloadDiff =
    capture.hasInput && capture.hasOutput ? computePayloadDiff(capture.inputPayload, capture.outputPayload) : null;
  return {
    ok: true,
    prepared: {
      event,
      hash: contentHash(ctx.keyring, canonical),
      canonical,
      capture,
      payloadDiff,
      unstorablePath: storableText
        ? storedErrorUnstorable(capture)
        : findUnstorableEventValue(event, {
            input: capture.inputPayload,
            output: capture.outputPayload,
            error: capture.error,
            runtime: capture.runtimeMetadata,
            deployment: capture.deploymentMetadata,
            metadata: capture.customMetadata,
          }),
    },
  };
}

/**
 * Storability of an event whose sent text is all storable. What capture keeps of it is too:
 * redaction keeps strings and keys whole or replaces them with markers, and cuts header lines
 * only after an ASCII `:`. The error's text alone is rewritten by pattern (mask-error-text.ts),
 * so it alone is checked, as findUnstorableEventValue would check it.
 */
function storedErrorUnstorable(capture: CaptureResult): string | null {
  return capture.error === null ? null : findUnstorable(capture.error, 'event.error');
}

export function unstorableRefusal(path: string): Refusal {
  return {
    code: 'unstorable_payload',
    message: 'A value holds a NUL character or an unpaired surrogate and cannot be stored.',
    details: [{ path, message: 'NUL or unpaired surrogate' }],
  };
}

export { classifyEvent };
