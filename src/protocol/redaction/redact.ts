// Redaction of one root value (event protocol 5.3-5.7): built-in secret names, operator rules,
// header shapes and header lines in strings. Pure: the input is never mutated.
import type { CompiledRule, RuleStep } from './operator-rules.ts';
import { foldName, isFoldedBuiltInSecretName, isKnownHeaderName } from './secret-names.ts';
import { setOwn } from '../own-keys.ts';

/** The marker that replaces a removed value (5.9). */
export const REDACTED = '[REDACTED]';

/** Where a path rule stands while walking: the next step it needs to match. */
interface Cursor {
  readonly steps: readonly RuleStep[];
  readonly index: number;
}

interface Context {
  /** Folded `**.name` operator names; with the built-ins they are the "secret names" of 5.6. */
  readonly anyDepth: ReadonlySet<string>;
  readonly rootCursors: readonly Cursor[];
  /** Folded form and secret-name verdict by key: payloads repeat the same keys call after call. */
  readonly keyVerdicts: Map<string, KeyVerdict>;
}

interface KeyVerdict {
  readonly folded: string;
  readonly secret: boolean;
}

/** Bound on remembered keys, so that a stream of distinct keys cannot grow a redactor without limit. */
const KEY_VERDICT_LIMIT = 10_000;


/** Reads an own property only, so that `value`/`name` never come from a prototype. */
function getOwn(source: object, key: string): unknown {
  return Object.hasOwn(source, key) ? (source as Record<string, unknown>)[key] : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function createContext(rules: readonly CompiledRule[]): Context {
  const anyDepth = new Set<string>();
  const rootCursors: Cursor[] = [];
  for (const rule of rules) {
    if (rule.kind === 'any-depth') anyDepth.add(rule.folded);
    else if (rule.steps.length > 0) rootCursors.push({ steps: rule.steps, index: 0 });
  }
  return { anyDepth, rootCursors, keyVerdicts: new Map() };
}

function keyVerdict(ctx: Context, key: string): KeyVerdict {
  let verdict = ctx.keyVerdicts.get(key);
  if (verdict === undefined) {
    const folded = foldName(key);
    verdict = { folded, secret: isFoldedBuiltInSecretName(folded) || ctx.anyDepth.has(folded) };
    if (ctx.keyVerdicts.size >= KEY_VERDICT_LIMIT) ctx.keyVerdicts.clear();
    ctx.keyVerdicts.set(key, verdict);
  }
  return verdict;
}

function isSecretName(ctx: Context, name: string): boolean {
  const folded = foldName(name);
  return isFoldedBuiltInSecretName(folded) || ctx.anyDepth.has(folded);
}

/** A header value that is itself a known header name is kept in every shape (5.6). */
function isReplaceableHeaderValue(value: unknown): boolean {
  return !(typeof value === 'string' && isKnownHeaderName(value));
}

// RFC 9110 token characters; a rawHeaders name may also be an HTTP/2 pseudo-header (`:path`).
export const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
export const RAW_HEADER_NAME = /^:?[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Indices of an array to replace because of a `[name, value]` or rawHeaders shape (5.6). */
/** No index to replace: shared, so the arrays that are not header shapes (most) allocate nothing. */
const NO_INDICES: ReadonlySet<number> = new Set<number>();

function headerShapeIndices(ctx: Context, items: readonly unknown[]): ReadonlySet<number> {
  const first = items[0];
  if (items.length === 2 && typeof first === 'string') {
    return isSecretName(ctx, first) && isReplaceableHeaderValue(items[1]) ? new Set([1]) : NO_INDICES;
  }
  if (items.length === 0 || items.length % 2 !== 0) return NO_INDICES;
  let sawKnownName = false;
  for (let i = 0; i < items.length; i += 2) {
    const name = items[i];
    if (typeof name !== 'string' || !RAW_HEADER_NAME.test(name)) return NO_INDICES;
    if (typeof items[i + 1] !== 'string') return NO_INDICES;
    if (isKnownHeaderName(name)) sawKnownName = true;
  }
  if (!sawKnownName) return NO_INDICES;
  const indices = new Set<number>();
  for (let i = 0; i < items.length; i += 2) {
    if (isSecretName(ctx, items[i] as string) && isReplaceableHeaderValue(items[i + 1])) {
      indices.add(i + 1);
    }
  }
  return indices;
}

/** True when a `{name|key, value, ...}` object's `value` must be replaced (5.6). */
function isSecretNameValueObject(ctx: Context, source: Record<string, unknown>): boolean {
  if (!Object.hasOwn(source, 'value')) return false;
  const name = getOwn(source, 'name');
  const key = getOwn(source, 'key');
  const label = typeof name === 'string' ? name : typeof key === 'string' ? key : undefined;
  return label !== undefined && isSecretName(ctx, label) && isReplaceableHeaderValue(source.value);
}

const TRUNCATION_SUFFIX = ' characters removed]';
const TRUNCATION_PREFIX = '[TRUNCATED: ';

/** True when `text` ends with `[TRUNCATED: <n> characters removed]` (5.9); checked without regex. */
export function endsWithTruncationMarker(text: string): boolean {
  if (!text.endsWith(TRUNCATION_SUFFIX)) return false;
  const start = text.lastIndexOf(TRUNCATION_PREFIX);
  if (start < 0) return false;
  const digits = text.slice(start + TRUNCATION_PREFIX.length, text.length - TRUNCATION_SUFFIX.length);
  return /^[0-9]+$/.test(digits);
}

/** Masks one header line when its name is secret; returns it unchanged otherwise. */
function maskHeaderLine(ctx: Context, line: string): string {
  const colon = line.indexOf(':');
  if (colon <= 0) return line;
  const token = line.slice(0, colon);
  if (!TOKEN.test(token) || !isSecretName(ctx, token)) return line;
  let valueStart = colon + 1;
  while (line[valueStart] === ' ' || line[valueStart] === '\t') valueStart += 1;
  if (valueStart >= line.length) return line; // an empty value has nothing to hide
  return line.slice(0, valueStart) + REDACTED;
}

/**
 * Header lines in a string (5.7). Only a string holding CRLF, or ending in the truncation marker,
 * is read as a header block (decision 8): a lone `Name: value` line and LF-only text are kept.
 * Lines are read up to the first empty line after the first one; a body after it is untouched.
 */
function maskHeaderBlock(ctx: Context, text: string): string {
  if (!text.includes('\r\n') && !endsWithTruncationMarker(text)) return text;
  const lines = text.split('\r\n');
  let changed = false;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (line === '' && i > 0) break;
    const masked = maskHeaderLine(ctx, line);
    if (masked !== line) {
      lines[i] = masked;
      changed = true;
    }
  }
  return changed ? lines.join('\r\n') : text;
}

interface Step {
  readonly matched: boolean;
  readonly next: readonly Cursor[];
}

/** The step when no path rule is under way (the common case): shared, so no key allocates one. */
const NO_STEP: Step = Object.freeze({ matched: false, next: Object.freeze([]) as readonly Cursor[] });

/** Advances cursors over an object key; `matched` is true when a rule ends on this key. */
function stepKey(cursors: readonly Cursor[], folded: string): Step {
  if (cursors.length === 0) return NO_STEP;
  let matched = false;
  const next: Cursor[] = [];
  for (const cursor of cursors) {
    const step = cursor.steps[cursor.index];
    if (step === undefined || step.kind === 'elements') continue;
    if (step.kind === 'key' && step.folded !== folded) continue;
    if (cursor.index + 1 === cursor.steps.length) matched = true;
    else next.push({ steps: cursor.steps, index: cursor.index + 1 });
  }
  return { matched, next };
}

/** Advances cursors over an array element; only `[*]` steps apply to elements. */
function stepElement(cursors: readonly Cursor[]): Step {
  if (cursors.length === 0) return NO_STEP;
  let matched = false;
  const next: Cursor[] = [];
  for (const cursor of cursors) {
    if (cursor.steps[cursor.index]?.kind !== 'elements') continue;
    if (cursor.index + 1 === cursor.steps.length) matched = true;
    else next.push({ steps: cursor.steps, index: cursor.index + 1 });
  }
  return { matched, next };
}

/** `inPlace` writes into `value` itself; only for a tree the caller owns and shares with no one. */
function walk(ctx: Context, value: unknown, cursors: readonly Cursor[], inPlace: boolean): unknown {
  if (typeof value === 'string') return maskHeaderBlock(ctx, value);
  if (Array.isArray(value)) {
    const shaped = headerShapeIndices(ctx, value);
    const element = stepElement(cursors);
    const out: unknown[] = inPlace ? value : [];
    for (let i = 0; i < value.length; i += 1) {
      const replace = element.matched || shaped.has(i);
      const child = value[i];
      const item = replace ? REDACTED : walk(ctx, child, element.next, inPlace);
      // In place, an unchanged element is not written back (most are unchanged).
      if (!inPlace || item !== child) out[i] = item;
    }
    return out;
  }
  if (isPlainObject(value)) {
    const replaceValueKey = isSecretNameValueObject(ctx, value);
    const out: Record<string, unknown> = inPlace ? value : {};
    for (const key of Object.keys(value)) {
      const verdict = keyVerdict(ctx, key);
      const step = stepKey(cursors, verdict.folded);
      const replace = step.matched || verdict.secret || (replaceValueKey && key === 'value');
      const child = value[key];
      const item = replace ? REDACTED : walk(ctx, child, step.next, inPlace);
      if (!inPlace || item !== child) setOwn(out, key, item);
    }
    return out;
  }
  return value;
}

/**
 * The same redaction, returning every part that nothing changed as it is: a container is
 * rebuilt only when something below it was replaced. Objects of another prototype (class
 * instances, null-prototype objects), which the copying walk turns into plain objects, are
 * copied as before.
 */
function walkShared(ctx: Context, value: unknown, cursors: readonly Cursor[]): unknown {
  if (typeof value === 'string') return maskHeaderBlock(ctx, value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return walk(ctx, value, cursors, false);
    const shaped = headerShapeIndices(ctx, value);
    const element = stepElement(cursors);
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i += 1) {
      const child = value[i];
      const item = element.matched || shaped.has(i) ? REDACTED : walkShared(ctx, child, element.next);
      if (out === null && item !== child) out = value.slice(0, i);
      if (out !== null) out[i] = item;
    }
    return out ?? value;
  }
  if (isPlainObject(value)) {
    if (Object.getPrototypeOf(value) !== Object.prototype) return walk(ctx, value, cursors, false);
    const replaceValueKey = isSecretNameValueObject(ctx, value);
    const keys = Object.keys(value);
    let out: Record<string, unknown> | null = null;
    for (let k = 0; k < keys.length; k += 1) {
      const key = keys[k]!;
      const verdict = keyVerdict(ctx, key);
      const step = stepKey(cursors, verdict.folded);
      const child = value[key];
      const item = step.matched || verdict.secret || (replaceValueKey && key === 'value') ? REDACTED : walkShared(ctx, child, step.next);
      if (out === null && item !== child) {
        out = {};
        for (let j = 0; j < k; j += 1) setOwn(out, keys[j]!, value[keys[j]!]);
      }
      if (out !== null) setOwn(out, key, item);
    }
    return out ?? value;
  }
  return value;
}

/**
 * A redactor whose result shares with its input every part that nothing changed: for a caller
 * that changes neither afterwards (ingestion's capture), which then copies only what it redacts.
 */
export function createSharingRedactor(rules: readonly CompiledRule[] = []): (value: unknown) => unknown {
  const ctx = createContext(rules);
  return (value) => walkShared(ctx, value, ctx.rootCursors);
}

/**
 * Returns a redactor for one set of rules, so that an event's roots share one compiled context.
 * Pass no rules where operator rules do not apply (input/output under full capture).
 */
export function createRedactor(rules: readonly CompiledRule[] = []): (value: unknown) => unknown {
  const ctx = createContext(rules);
  return (value) => walk(ctx, value, ctx.rootCursors, false);
}

/**
 * The same redaction written into the value itself, which it then returns: for a caller that has
 * just made its own JSON copy (the SDK's capture) and would otherwise pay for a second one.
 * The value must be a tree (no object reached twice) that nothing else holds.
 */
export function createInPlaceRedactor(rules: readonly CompiledRule[] = []): (value: unknown) => unknown {
  const ctx = createContext(rules);
  return (value) => walk(ctx, value, ctx.rootCursors, true);
}

/**
 * Redacts one root value (5.3): a match of any type becomes `[REDACTED]`, its key stays.
 * Returns a new value; objects and arrays are rebuilt even when nothing matched.
 */
export function redactValue(value: unknown, rules: readonly CompiledRule[] = []): unknown {
  return createRedactor(rules)(value);
}

/** Header-line masking of one string on its own (5.7), with the given rules' `**.name` names. */
export function maskHeaderLines(text: string, rules: readonly CompiledRule[] = []): string {
  return maskHeaderBlock(createContext(rules), text);
}
