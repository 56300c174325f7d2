// Envelope and event validation (event-protocol 2.1–2.6), step 2 of the per-event order (2.7).
// Call it after checkStructuralLimits: the walks here recurse, and the limits bound them.
//
// Written by hand rather than with zod: the protocol wants exact detail paths from the envelope
// root, lengths in code points, `null` refused for optional fields but absent for input/output,
// and `__proto__` kept as an ordinary own key in open objects. zod 4 strips `__proto__` from
// records and objects, so an alias of type `__proto__` would silently disappear.

import type { ErrorDetail } from './error-detail.ts';
import {
  ALIAS_TYPE_LENGTH, ALIAS_VALUE_LENGTH, DISPLAYABLE_ALIAS_LENGTH, MAX_DISPLAYABLE_ALIASES, MAX_DURATION_MS,
  MAX_VALIDATION_DETAILS, METADATA_KEY_LENGTH, PROTOCOL_VERSION, PROTOCOL_VERSION_MAX_LENGTH,
  DEPLOYMENT_FIELD_LENGTHS as DEPLOYMENT, ENTITY_FIELD_LENGTHS as ENTITY, ERROR_FIELD_LENGTHS as ERROR,
  EVENT_FIELD_LENGTHS as EVENT, RUNTIME_FIELD_LENGTHS as RUNTIME, SDK_FIELD_LENGTHS as SDK,
} from './limits.ts';
import type { LengthRange } from './limits.ts';
import { parseTimestamp } from './timestamps.ts';
import { OPERATIONS } from './envelope-types.ts';
import type { JsonObject, JsonValue, Operation, ValidEvent } from './envelope-types.ts';
import { setOwn } from './own-keys.ts';

export { OPERATIONS, classifyEvent } from './envelope-types.ts';
export type {
  EventClass, EventDeployment, EventEntity, EventError, EventRuntime, EventSdk,
  JsonObject, JsonValue, Operation, ValidEvent,
} from './envelope-types.ts';

export type EnvelopeRefusalCode = 'invalid_event' | 'unsupported_protocol_version';
export type EnvelopeResult =
  | { ok: true; event: ValidEvent }
  | { ok: false; code: EnvelopeRefusalCode; message: string; details: ErrorDetail[] };

type Obj = Record<string, unknown>;

/** Collects details; past the cap it only counts (see MAX_VALIDATION_DETAILS). */
class Issues {
  readonly details: ErrorDetail[] = [];
  total = 0;
  /** See ValidateOptions; carried here because every reader is handed the issues. */
  constructor(readonly sharePayloads = false) {}
  add(path: string, message: string): void {
    this.total++;
    if (this.details.length < MAX_VALIDATION_DETAILS) this.details.push({ path, message });
  }
}

/** How one field of a closed object is read; `read` returns undefined after adding an issue. */
interface Field {
  required: boolean;
  /** input/output only: null means absent (2.5). Elsewhere null for an optional field is refused. */
  nullIsAbsent?: boolean;
  read: (value: unknown, path: string, issues: Issues) => unknown;
}

const str = (range: LengthRange, required = false): Field => ({
  required,
  read: (v, path, issues) => readString(v, path, range, issues),
});
const closed = (fields: Record<string, Field>, required = false): Field => ({
  required,
  read: (v, path, issues) => {
    if (isObject(v)) return readClosed(v, path, fields, issues);
    issues.add(path, 'must be an object');
    return undefined;
  },
});

const ENTITY_FIELDS = { type: str(ENTITY.type, true), id: str(ENTITY.id, true) };
const ERROR_FIELDS = {
  type: str(ERROR.type), message: str(ERROR.message, true), code: str(ERROR.code), stack: str(ERROR.stack),
};
const SDK_FIELDS = { name: str(SDK.name, true), version: str(SDK.version, true), commit: str(SDK.commit) };
const RUNTIME_FIELDS = {
  language: str(RUNTIME.language),
  version: str(RUNTIME.version),
  hostname: str(RUNTIME.hostname),
  processId: integer(Number.MAX_SAFE_INTEGER),
  sdk: closed(SDK_FIELDS),
};
const DEPLOYMENT_FIELDS = {
  gitCommit: str(DEPLOYMENT.gitCommit), version: str(DEPLOYMENT.version), image: str(DEPLOYMENT.image),
};
const PAYLOAD: Field = { required: false, nullIsAbsent: true, read: copyJson };

// In 2.2 order, which is also the order of details and of the validated event's keys.
const EVENT_FIELDS: Record<string, Field> = {
  id: str(EVENT.id, true),
  journeyId: str(EVENT.journeyId, true),
  environment: str(EVENT.environment, true),
  service: str(EVENT.service, true),
  entity: closed(ENTITY_FIELDS, true),
  operation: { required: true, read: readOperation },
  name: str(EVENT.name, true),
  timestamp: { required: true, read: readTimestamp },
  aliases: { required: false, read: readAliases },
  displayableAliases: { required: false, read: readDisplayableAliases },
  journeyLabel: str(EVENT.journeyLabel),
  durationMs: integer(MAX_DURATION_MS),
  parentEventId: str(EVENT.parentEventId),
  traceId: str(EVENT.traceId),
  spanId: str(EVENT.spanId),
  messageId: str(EVENT.messageId),
  correlationId: str(EVENT.correlationId),
  input: PAYLOAD,
  output: PAYLOAD,
  error: closed(ERROR_FIELDS),
  runtime: closed(RUNTIME_FIELDS),
  deployment: closed(DEPLOYMENT_FIELDS),
  metadata: { required: false, read: readMetadata },
};

const ENVELOPE_FIELDS = { protocolVersion: true, event: true };

export interface ValidateOptions {
  /**
   * The validated event may share payloads and metadata values with the envelope, rather than
   * hold copies, where they are plain JSON data: for a caller that owns the envelope and never
   * changes it (the server's parsed body), which then saves copying every payload.
   */
  sharePayloads?: boolean;
}

/** Validate one parsed envelope (2.1–2.6). Unknown fields of closed objects are dropped. */
export function validateEnvelope(value: unknown, options: ValidateOptions = {}): EnvelopeResult {
  if (!isObject(value)) return invalid([{ path: '', message: 'the envelope must be a JSON object' }], 1);
  // 2.1: the version is settled before `event` is read, so any event shape gets this answer.
  const version = own(value, 'protocolVersion');
  if (version === undefined) return invalid([{ path: 'protocolVersion', message: 'is required' }], 1);
  const versionIssues = new Issues();
  const versionText = readString(version, 'protocolVersion', { min: 1, max: PROTOCOL_VERSION_MAX_LENGTH }, versionIssues);
  if (versionText === undefined) return invalid(versionIssues.details, versionIssues.total);
  if (versionText !== PROTOCOL_VERSION) {
    const message = `Protocol version ${JSON.stringify(versionText)} is not served; this server speaks ${PROTOCOL_VERSION}.`;
    return { ok: false, code: 'unsupported_protocol_version', message, details: [{ path: 'protocolVersion', message }] };
  }
  const issues = new Issues(options.sharePayloads === true);
  const event = own(value, 'event');
  let out: Obj | undefined;
  if (event === undefined) issues.add('event', 'is required');
  else if (!isObject(event)) issues.add('event', 'must be an object');
  else out = readClosed(event, 'event', EVENT_FIELDS, issues);
  checkUnknownKeys(value, '', ENVELOPE_FIELDS, issues);
  if (issues.total > 0 || out === undefined) return invalid(issues.details, issues.total);
  const timestampMs = parseTimestamp(out.timestamp as string) as number;
  return { ok: true, event: { ...(out as unknown as Omit<ValidEvent, 'timestampMs'>), timestampMs } };
}

function invalid(details: ErrorDetail[], total: number): EnvelopeResult {
  const first = details[0];
  const where = first === undefined ? '' : ` ${first.path === '' ? 'envelope' : first.path}: ${first.message}`;
  const more = total > 1 ? ` (and ${total - 1} more problem${total > 2 ? 's' : ''})` : '';
  return { ok: false, code: 'invalid_event', message: `The event is invalid.${where}${more}`, details };
}

function readClosed(obj: Obj, base: string, fields: Record<string, Field>, issues: Issues): Obj {
  const out: Obj = {};
  for (const [key, field, path] of fieldPaths(fields, base)) {
    const value = own(obj, key);
    if (value === undefined || (value === null && field.nullIsAbsent === true)) {
      if (field.required) issues.add(path, 'is required');
      continue;
    }
    if (value === null && !field.required) {
      issues.add(path, 'must not be null; omit the field instead');
      continue;
    }
    const result = field.read(value, path, issues);
    if (result !== undefined) setOwn(out, key, result);
  }
  checkUnknownKeys(obj, base, fields, issues);
  return out;
}

/** Each closed object is read under one base path, so its fields and their paths are listed once. */
const FIELD_PATHS = new WeakMap<Record<string, Field>, { base: string; list: Array<[string, Field, string]> }>();

function fieldPaths(fields: Record<string, Field>, base: string): Array<[string, Field, string]> {
  const known = FIELD_PATHS.get(fields);
  if (known !== undefined && known.base === base) return known.list;
  const list = Object.entries(fields).map(([key, field]): [string, Field, string] => [key, field, joinPath(base, key)]);
  FIELD_PATHS.set(fields, { base, list });
  return list;
}

// Unknown fields are dropped, but a number too large for a double is refused anywhere (2.5).
function checkUnknownKeys(obj: Obj, base: string, known: object, issues: Issues): void {
  for (const key of Object.keys(obj)) {
    if (!Object.hasOwn(known, key)) findNonFinite(obj[key], joinPath(base, key), issues);
  }
}

function findNonFinite(value: unknown, path: string, issues: Issues): void {
  if (typeof value === 'number' && !Number.isFinite(value)) issues.add(path, NON_FINITE);
  else if (Array.isArray(value)) value.forEach((item, i) => findNonFinite(item, joinPath(path, String(i)), issues));
  else if (isObject(value)) for (const key of Object.keys(value)) findNonFinite(value[key], joinPath(path, key), issues);
}

const NON_FINITE = 'is a number too large for a double; send big numbers as strings';

function readString(value: unknown, path: string, range: LengthRange, issues: Issues): string | undefined {
  if (typeof value !== 'string') {
    issues.add(path, 'must be a string');
    return undefined;
  }
  if (!withinLength(value, range)) {
    issues.add(path, `must be ${range.min}–${range.max} characters long (code points)`);
    return undefined;
  }
  return value;
}

function readOperation(value: unknown, path: string, issues: Issues): Operation | undefined {
  if (typeof value === 'string' && (OPERATIONS as readonly string[]).includes(value)) return value as Operation;
  issues.add(path, `must be one of ${OPERATIONS.join(', ')}`);
  return undefined;
}

function readTimestamp(value: unknown, path: string, issues: Issues): string | undefined {
  if (typeof value === 'string' && parseTimestamp(value) !== null) return value;
  issues.add(path, 'must be a timestamp YYYY-MM-DDThh:mm[:ss[.fff]] with Z or ±hh:mm, UTC year 0001–9999');
  return undefined;
}

/** An integer field; `max` is MAX_DURATION_MS or MAX_SAFE_INTEGER. */
function integer(max: number): Field {
  const read = (value: unknown, path: string, issues: Issues): number | undefined => {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max) return value;
    issues.add(path, typeof value === 'number' && !Number.isFinite(value) ? NON_FINITE : `must be an integer from 0 to ${max}`);
    return undefined;
  };
  return { required: false, read };
}

/** aliases and metadata: open objects whose keys are bounded and kept as own keys, `__proto__` too. */
function readOpen<T>(
  value: unknown,
  path: string,
  what: string,
  keyRange: LengthRange,
  readItem: (item: unknown, itemPath: string, issues: Issues) => T | undefined,
  issues: Issues,
): Record<string, T> | undefined {
  if (!isObject(value)) {
    issues.add(path, `must be an object${what}`);
    return undefined;
  }
  const out: Record<string, T> = {};
  for (const key of Object.keys(value)) {
    const itemPath = joinPath(path, key);
    if (!withinLength(key, keyRange)) {
      issues.add(itemPath, `key must be at most ${keyRange.max} characters long (code points)`);
      continue;
    }
    const item = readItem(value[key], itemPath, issues);
    if (item !== undefined) setOwn(out, key, item);
  }
  return out;
}

function readAliases(value: unknown, path: string, issues: Issues): Record<string, string> | undefined {
  const readValue = (v: unknown, p: string, i: Issues) => readString(v, p, ALIAS_VALUE_LENGTH, i);
  return readOpen(value, path, ' of string values', ALIAS_TYPE_LENGTH, readValue, issues);
}

function readMetadata(value: unknown, path: string, issues: Issues): JsonObject | undefined {
  return readOpen(value, path, '', METADATA_KEY_LENGTH, copyJson, issues);
}

function readDisplayableAliases(value: unknown, path: string, issues: Issues): string[] | undefined {
  if (!Array.isArray(value)) {
    issues.add(path, 'must be an array of alias types');
    return undefined;
  }
  if (value.length > MAX_DISPLAYABLE_ALIASES) {
    issues.add(path, `must have at most ${MAX_DISPLAYABLE_ALIASES} items`);
    return undefined;
  }
  const out: string[] = [];
  value.forEach((item, i) => {
    const type = readString(item, joinPath(path, String(i)), DISPLAYABLE_ALIAS_LENGTH, issues);
    if (type !== undefined) out.push(type);
  });
  return out;
}

/**
 * A JSON value as validated: a copy with every refusal reported, or, when the caller lets the
 * event share payloads and the value is plain JSON data (as every parsed body is), the value itself.
 */
function copyJson(value: unknown, path: string, issues: Issues): JsonValue | undefined {
  return issues.sharePayloads && isPlainJson(value, 0) ? (value as JsonValue) : copyJsonReporting(value, path, issues);
}

/** True when copyJsonReporting would return an equal value and report nothing. */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  // Deeper than the structural limits allow is never reached after them; the copy decides.
  if (depth > MAX_PLAIN_CHECK_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  if (isObject(value) && isPlainPrototype(value)) {
    for (const key of Object.keys(value)) if (!isPlainJson(value[key], depth + 1)) return false;
    return true;
  }
  return false;
}

const MAX_PLAIN_CHECK_DEPTH = 64;

/** A fresh copy of a JSON value; own keys stay own (`__proto__` too). */
function copyJsonReporting(value: unknown, path: string, issues: Issues): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    issues.add(path, NON_FINITE);
    return undefined;
  }
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = copyJsonReporting(value[i], joinPath(path, String(i)), issues);
      if (item !== undefined) out.push(item);
    }
    return out;
  }
  if (isObject(value) && isPlainPrototype(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const item = copyJsonReporting(value[key], joinPath(path, key), issues);
      if (item !== undefined) setOwn(out, key, item);
    }
    return out;
  }
  // Only reachable from in-process callers (undefined, functions, Dates, bigints…).
  issues.add(path, 'is not a JSON value');
  return undefined;
}

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlainPrototype(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An own property only: an inherited `constructor` or `toString` is not a sent field. */
function own(obj: Obj, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * Plain assignment of `__proto__` would set the prototype instead of a key (2.5), so that key
 * is defined; every other key is assigned, which gives the same own data property on a plain
 * object (only `__proto__` is an accessor of Object.prototype) at half the cost of validation
 * (bench/ingest.ts).
 */
function joinPath(parent: string, segment: string): string {
  return parent === '' ? segment : `${parent}.${segment}`;
}

/** Code points, a lone surrogate counting as one; only counted when units cannot decide. */
function withinLength(text: string, range: LengthRange): boolean {
  // A string of n units has between ceil(n / 2) and n code points.
  if (text.length <= range.max && Math.ceil(text.length / 2) >= range.min) return true;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count >= range.min && count <= range.max;
}
