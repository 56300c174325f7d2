// Capture of one event's payloads and metadata under its environment's settings (event protocol
// 5.1-5.3): what is stored, which rules apply to it, and what the error keeps.
import { maskCredentialText } from '../../protocol/redaction/mask-error-text.ts';
import { compileRules } from '../../protocol/redaction/operator-rules.ts';
import { setOwn } from '../../protocol/own-keys.ts';
import { createSharingRedactor } from '../../protocol/redaction/redact.ts';

export const CAPTURE_MODES = [
  'metadata-only',
  'allowlisted-fields',
  'redacted-payload',
  'full-payload',
] as const;

export type CaptureMode = (typeof CAPTURE_MODES)[number];

/** An environment's capture settings (5.1). */
export interface CaptureSettings {
  readonly captureMode: CaptureMode;
  /** Operator rules (5.5); malformed ones are ignored and reported in `malformedRules`. */
  readonly redactionPaths: readonly string[];
  /** Dot paths of literal keys (5.2), used by `allowlisted-fields` only. */
  readonly captureAllowlist: readonly string[];
}

/** The error object as validated (2.3); unknown fields are not carried over. */
export interface EventError {
  readonly type?: string;
  readonly message: string;
  readonly code?: string;
  readonly stack?: string;
}

/** The parts of a validated event that capture covers. */
export interface CapturableEvent {
  readonly input?: unknown;
  readonly output?: unknown;
  readonly error?: EventError;
  readonly runtime?: Readonly<Record<string, unknown>>;
  readonly deployment?: Readonly<Record<string, unknown>>;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface StoredError {
  type?: unknown;
  message: unknown;
  code?: unknown;
  stack?: unknown;
}

/** What is stored (10.1): null where absent or not captured. */
export interface CaptureResult {
  readonly inputPayload: unknown;
  readonly outputPayload: unknown;
  readonly hasInput: boolean;
  readonly hasOutput: boolean;
  readonly error: StoredError | null;
  readonly runtimeMetadata: Record<string, unknown> | null;
  readonly deploymentMetadata: Record<string, unknown> | null;
  readonly customMetadata: Record<string, unknown> | null;
  /** Operator rules that were ignored as malformed, for the caller to log with the environment. */
  readonly malformedRules: string[];
}

export function isCaptureMode(value: unknown): value is CaptureMode {
  return typeof value === 'string' && (CAPTURE_MODES as readonly string[]).includes(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A trie of allowlist paths; `whole` marks a path that selects its value entirely. */
interface PathNode {
  whole: boolean;
  readonly children: Map<string, PathNode>;
}

function buildPathTrie(paths: readonly string[]): PathNode {
  const root: PathNode = { whole: false, children: new Map() };
  for (const path of paths) {
    let node = root;
    for (const key of path.split('.')) {
      let child = node.children.get(key);
      if (child === undefined) {
        child = { whole: false, children: new Map() };
        node.children.set(key, child);
      }
      node = child;
    }
    node.whole = true;
  }
  return root;
}

/**
 * Copies only the allowlisted paths of `source` (5.2): literal keys compared exactly, stepping
 * through objects only. Returns undefined when nothing is selected below an inner node, so that a
 * missing path leaves no empty parent behind. Selected values are shared here; the redactor
 * rebuilds them afterwards.
 */
function selectPaths(source: Record<string, unknown>, node: PathNode): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let selected = false;
  for (const key of Object.keys(source)) {
    const child = node.children.get(key);
    if (child === undefined) continue;
    const value = source[key];
    if (child.whole) {
      setOwn(out, key, value);
      selected = true;
    } else if (isObject(value)) {
      const inner = selectPaths(value, child);
      if (inner !== undefined) {
        setOwn(out, key, inner);
        selected = true;
      }
    }
  }
  return selected ? out : undefined;
}

function selectAllowlisted(value: unknown, paths: readonly string[]): Record<string, unknown> {
  // A non-object payload (array, string, number) becomes `{}`: paths step through objects only.
  if (!isObject(value)) return {};
  return selectPaths(value, buildPathTrie(paths)) ?? {};
}

/** Redacts the error as a root, keeps only its known fields, and masks its text by shape (5.8). */
function captureError(
  error: EventError,
  keepStack: boolean,
  redact: (value: unknown) => unknown,
): StoredError {
  // Only the closed object's fields; a stack below effective full capture is dropped first, so
  // that it is never read by anything.
  const picked: Record<string, unknown> = {};
  if (error.type !== undefined) picked.type = error.type;
  picked.message = error.message;
  if (error.code !== undefined) picked.code = error.code;
  if (keepStack && error.stack !== undefined) picked.stack = error.stack;
  const redacted = redact(picked) as Record<string, unknown>;
  // Shape masking applies to the message and a kept stack only; type and code stay as redacted.
  const stored: StoredError = { message: maskIfString(redacted.message) };
  if (Object.hasOwn(redacted, 'type')) stored.type = redacted.type;
  if (Object.hasOwn(redacted, 'code')) stored.code = redacted.code;
  if (Object.hasOwn(redacted, 'stack')) stored.stack = maskIfString(redacted.stack);
  return stored;
}

function maskIfString(value: unknown): unknown {
  return typeof value === 'string' ? maskCredentialText(value) : value;
}

/** `null` for input/output counts as absent (2.5). */
function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * Applies capture, redaction and masking to one event (5.2, 5.3). `allowFullPayloadCapture` is
 * the process flag `ALLOW_FULL_PAYLOAD_CAPTURE`: without it, `full-payload` behaves as
 * `redacted-payload`. Never throws on payload content; capture never refuses an event.
 */
export function applyCapture(
  event: CapturableEvent,
  settings: CaptureSettings,
  allowFullPayloadCapture: boolean,
): CaptureResult {
  const { rules, malformed } = compileRules(settings.redactionPaths);
  const fullCapture = settings.captureMode === 'full-payload' && allowFullPayloadCapture;
  // What is stored shares with the event whatever redaction leaves as it was: nothing writes to
  // either afterwards, and most of a payload is left as it was.
  const redactAll = createSharingRedactor(rules);
  // Under effective full capture, payloads get the built-in names only; metadata still gets all.
  const redactPayload = fullCapture ? createSharingRedactor([]) : redactAll;

  const capturePayload = (value: unknown): unknown => {
    if (!isPresent(value) || settings.captureMode === 'metadata-only') return null;
    if (settings.captureMode === 'allowlisted-fields') {
      return redactPayload(selectAllowlisted(value, settings.captureAllowlist));
    }
    return redactPayload(value);
  };
  const captureObject = (value: unknown): Record<string, unknown> | null =>
    value === undefined || value === null ? null : (redactAll(value) as Record<string, unknown>);

  const inputPayload = capturePayload(event.input);
  const outputPayload = capturePayload(event.output);
  return {
    inputPayload,
    outputPayload,
    hasInput: inputPayload !== null,
    hasOutput: outputPayload !== null,
    error: event.error === undefined ? null : captureError(event.error, fullCapture, redactAll),
    runtimeMetadata: captureObject(event.runtime),
    deploymentMetadata: captureObject(event.deployment),
    customMetadata: captureObject(event.metadata),
    malformedRules: malformed,
  };
}
