// What ingestion would store for one event under settings that are not saved yet: the settings
// page's preview. It runs the very preparation ingestion runs (validation, structural limits,
// capture, redaction, masking, the storability check), so what it shows is what would be stored.
import type { Keyring } from '../crypto/keyring.ts';
import { applyCapture, type CaptureMode, type CaptureResult, type CaptureSettings, type EventError } from './capture/capture.ts';
import { prepareEvent, unstorableRefusal, type Refusal } from './prepare.ts';

/** The captured parts of an event, named as the event read (GET /v1/events/:eventId) names them. */
export interface CapturedParts {
  hasInput: boolean;
  hasOutput: boolean;
  inputPayload: unknown;
  outputPayload: unknown;
  error: Record<string, unknown> | null;
  runtimeMetadata: Record<string, unknown> | null;
  deploymentMetadata: Record<string, unknown> | null;
  customMetadata: Record<string, unknown> | null;
}

export interface CapturePreview {
  /** The mode capture applies: `full-payload` acts as `redacted-payload` without ALLOW_FULL_PAYLOAD_CAPTURE. */
  effectiveCaptureMode: CaptureMode;
  /** Rules capture ignores as malformed (the route refuses those before a save). */
  malformedRules: string[];
  /** Why ingestion would refuse the event, or null. */
  refusal: Refusal | null;
  stored: CapturedParts | null;
}

export interface PreviewContext {
  keyring: Keyring;
  environmentName: string;
  settings: CaptureSettings;
  allowFullPayloadCapture: boolean;
  maxEventPayloadBytes: number;
}

function effectiveMode(settings: CaptureSettings, allowFull: boolean): CaptureMode {
  return settings.captureMode === 'full-payload' && !allowFull ? 'redacted-payload' : settings.captureMode;
}

function parts(capture: CaptureResult): CapturedParts {
  return {
    hasInput: capture.hasInput,
    hasOutput: capture.hasOutput,
    inputPayload: capture.inputPayload,
    outputPayload: capture.outputPayload,
    error: capture.error as Record<string, unknown> | null,
    runtimeMetadata: capture.runtimeMetadata,
    deploymentMetadata: capture.deploymentMetadata,
    customMetadata: capture.customMetadata,
  };
}

/** A pasted envelope, prepared exactly as one sent with a key of this environment would be. */
export function previewEnvelopeCapture(envelope: unknown, ctx: PreviewContext): CapturePreview {
  const base = { effectiveCaptureMode: effectiveMode(ctx.settings, ctx.allowFullPayloadCapture) };
  const preparation = prepareEvent(envelope, {
    keyring: ctx.keyring,
    environmentName: ctx.environmentName,
    capture: ctx.settings,
    allowFullPayloadCapture: ctx.allowFullPayloadCapture,
    maxEventPayloadBytes: ctx.maxEventPayloadBytes,
  });
  if (!preparation.ok) return { ...base, malformedRules: [], refusal: preparation.refusal, stored: null };
  const { capture, unstorablePath } = preparation.prepared;
  if (unstorablePath !== null) return { ...base, malformedRules: capture.malformedRules, refusal: unstorableRefusal(unstorablePath), stored: null };
  return { ...base, malformedRules: capture.malformedRules, refusal: null, stored: parts(capture) };
}

/**
 * A recorded event under other settings: capture applied to what was stored. What the earlier
 * settings did not keep cannot come back, so this shows at most what is stored now.
 */
export interface StoredParts {
  inputPayload: unknown;
  outputPayload: unknown;
  error: unknown;
  runtimeMetadata: unknown;
  deploymentMetadata: unknown;
  customMetadata: unknown;
}

const objectOrNull = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

export function previewStoredCapture(stored: StoredParts, settings: CaptureSettings, allowFull: boolean): CapturePreview {
  const capture = applyCapture(
    {
      input: stored.inputPayload,
      output: stored.outputPayload,
      ...(objectOrNull(stored.error) === null ? {} : { error: stored.error as EventError }),
      ...(objectOrNull(stored.runtimeMetadata) === null ? {} : { runtime: objectOrNull(stored.runtimeMetadata)! }),
      ...(objectOrNull(stored.deploymentMetadata) === null ? {} : { deployment: objectOrNull(stored.deploymentMetadata)! }),
      ...(objectOrNull(stored.customMetadata) === null ? {} : { metadata: objectOrNull(stored.customMetadata)! }),
    },
    settings,
    allowFull,
  );
  return { effectiveCaptureMode: effectiveMode(settings, allowFull), malformedRules: capture.malformedRules, refusal: null, stored: parts(capture) };
}
