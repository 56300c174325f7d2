// Builds one protocol 0.1 envelope from a step the host recorded: capture to plain JSON,
// in-process redaction with the server's rules, error masking, then fitting to the limits.
import { randomUUID } from 'node:crypto';
import { ROOT_LEVEL, UNCAPTURABLE, storableText, toWireValue, toWireValueFlaggingKeys } from './capture.ts';
import { fitAliases, fitEnvelopeSize, fitErrorMessage, fitField, fitLabel, fitMetadata } from './fit.ts';
import {
  ENTITY_FIELD_LENGTHS,
  ERROR_FIELD_LENGTHS,
  EVENT_FIELD_LENGTHS,
  MAX_DURATION_MS,
  PROTOCOL_VERSION,
  REDACTED,
  isSecretLookingName,
  maskCredentialText,
} from './shared-rules.ts';
import type { Diagnostic, Entity, RecordFields } from './types.ts';

export interface Envelope {
  protocolVersion: string;
  event: Record<string, unknown>;
}

/** An envelope with its JSON, made once when the step is recorded. */
export interface BuiltEnvelope {
  readonly id: string;
  readonly name: string;
  readonly json: string;
}

export interface BuilderSettings {
  readonly service: string;
  readonly environment: string;
  /** Redacts a value the builder owns; may write into it (the recorder's redactor does). */
  readonly redact: (value: unknown) => unknown;
  readonly captureStack: boolean;
  readonly maxEventBytes: number;
  readonly runtime: Record<string, unknown>;
  readonly deployment: Record<string, unknown> | undefined;
  readonly report: (diagnostic: Diagnostic) => void;
  /** `field path` pairs already reported as unredacted secret names: each is reported once. */
  readonly reportedNames: Set<string>;
}

export interface StepContext {
  readonly journeyId: string;
  readonly entity: Entity;
  readonly label?: string | undefined;
  readonly traceId?: string | undefined;
  readonly spanId?: string | undefined;
}

export function newEventId(): string {
  return `evt_${randomUUID()}`;
}

/** The error as the protocol carries it (2.3): type, masked message, code, and a stack only if asked. */
export function describeError(error: unknown, settings: Pick<BuilderSettings, 'captureStack' | 'redact'>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  if (isError(error)) {
    // Each field read alone: an error whose getter throws still gives the others.
    picked.type = readOr(() => error.name || error.constructor?.name, undefined) || 'Error';
    picked.message = readOr(() => String(error.message), UNCAPTURABLE);
    const code = readOr(() => (error as { code?: unknown }).code, undefined);
    if (typeof code === 'string' || typeof code === 'number') picked.code = String(code);
    const stack = settings.captureStack ? readOr(() => error.stack, undefined) : undefined;
    if (typeof stack === 'string') picked.stack = stack;
  } else if (typeof error === 'string') {
    picked.message = error;
  } else if (isErrorShaped(error)) {
    // `{ type, message, code }` given as a plain object reads as the Error it describes.
    const type = readOr(() => error.type, undefined);
    const name = readOr(() => error.name, undefined);
    picked.type = typeof type === 'string' && type !== '' ? type : typeof name === 'string' && name !== '' ? name : 'Error';
    picked.message = readOr(() => String(error.message), UNCAPTURABLE);
    const code = readOr(() => error.code, undefined);
    if (typeof code === 'string' || typeof code === 'number') picked.code = String(code);
    const stack = settings.captureStack ? readOr(() => error.stack, undefined) : undefined;
    if (typeof stack === 'string') picked.stack = stack;
  } else {
    picked.type = typeof error;
    // A thrown object is captured and redacted like a payload before it becomes the message
    // text: its secret keys, rule paths and header shapes are replaced as they would be there.
    picked.message = readOr(() => {
      const captured = toWireValue(error);
      return JSON.stringify(captured === undefined ? captured : settings.redact(captured)) ?? String(error);
    }, 'Unreadable error');
  }
  const redacted = settings.redact(picked) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (typeof redacted.type === 'string') out.type = fitField(redacted.type, ERROR_FIELD_LENGTHS.type.max) || 'Error';
  out.message = fitErrorMessage(maskCredentialText(String(redacted.message)));
  if (typeof redacted.code === 'string') out.code = fitField(redacted.code, ERROR_FIELD_LENGTHS.code.max);
  if (typeof redacted.stack === 'string') out.stack = fitField(maskCredentialText(redacted.stack), ERROR_FIELD_LENGTHS.stack.max);
  return out;
}

const ERROR_SHAPE_KEYS = new Set(['type', 'name', 'message', 'code', 'stack']);

interface ErrorShape {
  type?: unknown;
  name?: unknown;
  message: string;
  code?: unknown;
  stack?: unknown;
}

/**
 * A plain object (or one without a prototype) holding a string `message` and no keys but those
 * of an error: anything else in it is data, captured and redacted as a payload would be.
 */
function isErrorShaped(value: unknown): value is ErrorShape {
  try {
    if (value === null || typeof value !== 'object') return false;
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    if (typeof (value as { message?: unknown }).message !== 'string') return false;
    return Object.keys(value).every((key) => ERROR_SHAPE_KEYS.has(key));
  } catch {
    return false;
  }
}

function isError(value: unknown): value is Error {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

function readOr<T, F>(read: () => T, fallback: F): T | F {
  try {
    return read();
  } catch {
    return fallback;
  }
}

function timestampOf(value: Date | string | undefined): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return new Date().toISOString();
}

/**
 * Verdicts of isSecretLookingName by key: payloads repeat the same keys, and the name check
 * (word splitting) is the costliest part of a capture. Bounded so odd key sets cannot grow it.
 */
const secretLookingCache = new Map<string, boolean>();
const SECRET_CACHE_LIMIT = 10_000;

function looksSecret(key: string): boolean {
  let verdict = secretLookingCache.get(key);
  if (verdict === undefined) {
    verdict = isSecretLookingName(key);
    if (secretLookingCache.size >= SECRET_CACHE_LIMIT) secretLookingCache.clear();
    secretLookingCache.set(key, verdict);
  }
  return verdict;
}

/** Stands for `[*]` in a path under construction; a key is kept as it is. */
const ELEMENTS: unique symbol = Symbol('elements');
type Segment = string | typeof ELEMENTS;

/** Reports secret-looking keys (5.8 item 7) that no rule replaced, once per field and path. */
function reportUnredactedNames(settings: BuilderSettings, field: string, value: unknown): void {
  // The path is kept as segments and written out only when something is reported.
  visitNames(settings, field, value, []);
}

function visitNames(settings: BuilderSettings, field: string, node: unknown, segments: Segment[]): void {
  if (segments.length > 63 || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    segments.push(ELEMENTS);
    for (const item of node) visitNames(settings, field, item, segments);
    segments.pop();
    return;
  }
  for (const key of Object.keys(node)) {
    const item = (node as Record<string, unknown>)[key];
    segments.push(key);
    if (item !== REDACTED && looksSecret(key)) report(settings, field, key, pathOf(field, segments));
    visitNames(settings, field, item, segments);
    segments.pop();
  }
}

function pathOf(field: string, segments: readonly Segment[]): string {
  let path = field;
  for (const segment of segments) path += segment === ELEMENTS ? '[*]' : `.${segment}`;
  return path;
}

function report(settings: BuilderSettings, field: string, name: string, path: string): void {
  const id = `${field} ${path}`;
  if (settings.reportedNames.has(id)) return;
  settings.reportedNames.add(id);
  settings.report({
    kind: 'unredacted_secret_name',
    message: `A secret-looking name no rule covers was sent as it is: ${path}. Add a redaction rule if it holds a secret.`,
    detail: { field, name, path },
  });
}

function capturedRoot(settings: BuilderSettings, field: string, value: unknown): unknown {
  // The copy notes whether any of its keys looks secret, so that the walk that reports them (with
  // their paths) runs only for payloads that have one.
  const { value: captured, flagged } = toWireValueFlaggingKeys(value, ROOT_LEVEL, looksSecret, Math.ceil(settings.maxEventBytes / 2));
  if (captured === undefined || captured === null) return undefined;
  const redacted = settings.redact(captured);
  if (flagged) reportUnredactedNames(settings, field, redacted);
  return redacted;
}

const LINK_FIELDS = ['parentEventId', 'messageId', 'correlationId'] as const;

/** One envelope ready to queue; throws only on a bug, which the caller counts as a capture failure. */
export function buildEnvelope(settings: BuilderSettings, step: StepContext, fields: RecordFields): BuiltEnvelope {
  const event: Record<string, unknown> = {
    id: newEventId(),
    journeyId: step.journeyId,
    environment: settings.environment,
    service: settings.service,
    entity: {
      // A type of only U+0000 is empty once made storable.
      type: fitField(String(step.entity.type), ENTITY_FIELD_LENGTHS.type.max) || 'unknown',
      id: storableText(String(step.entity.id), true),
    },
    operation: fields.operation,
    name: fitField(String(fields.name), EVENT_FIELD_LENGTHS.name.max) || fields.operation,
    timestamp: timestampOf(fields.timestamp),
  };
  const label = fitLabel(step.label);
  if (label !== undefined) event.journeyLabel = label;
  if (fields.aliases !== undefined || fields.displayableAliases !== undefined) {
    const aliases = fitAliases(fields.aliases, fields.displayableAliases);
    if (aliases.aliases !== undefined) event.aliases = aliases.aliases;
    if (aliases.displayableAliases !== undefined) event.displayableAliases = aliases.displayableAliases;
  }
  if (fields.durationMs !== undefined && Number.isFinite(fields.durationMs)) {
    event.durationMs = Math.min(MAX_DURATION_MS, Math.max(0, Math.round(fields.durationMs)));
  }
  for (const key of LINK_FIELDS) {
    const value = fields[key];
    if (typeof value === 'string') event[key] = fitField(value, EVENT_FIELD_LENGTHS[key].max);
  }
  if (step.traceId !== undefined) event.traceId = step.traceId;
  if (step.spanId !== undefined) event.spanId = step.spanId;
  const input = capturedRoot(settings, 'input', fields.input);
  if (input !== undefined) event.input = input;
  const output = capturedRoot(settings, 'output', fields.output);
  if (output !== undefined) event.output = output;
  if (fields.error !== undefined && fields.error !== null) event.error = describeError(fields.error, settings);
  event.runtime = settings.runtime;
  if (settings.deployment !== undefined) event.deployment = settings.deployment;
  if (fields.metadata !== undefined) {
    // Metadata that cannot be read whole (a marker instead of an object) is left off.
    const metadata = capturedRoot(settings, 'metadata', fields.metadata);
    if (metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)) {
      event.metadata = fitMetadata(metadata as Record<string, unknown>);
    }
  }
  const envelope: Envelope = { protocolVersion: PROTOCOL_VERSION, event };
  const json = fitEnvelopeSize(envelope, settings.maxEventBytes);
  return { id: event.id as string, name: event.name as string, json };
}
