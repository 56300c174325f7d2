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
}


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
  return { anyDepth, rootCursors };
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
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RAW_HEADER_NAME = /^:?[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Indices of an array to replace because of a `[name, value]` or rawHeaders shape (5.6). */
function headerShapeIndices(ctx: Context, items: readonly unknown[]): Set<number> {
  const indices = new Set<number>();
  const first = items[0];
  if (items.length === 2 && typeof first === 'string') {
    if (isSecretName(ctx, first) && isReplaceableHeaderValue(items[1])) indices.add(1);
    return indices;
  }
  if (items.length === 0 || items.length % 2 !== 0) return indices;
  let sawKnownName = false;
  for (let i = 0; i < items.length; i += 2) {
    const name = items[i];
    if (typeof name !== 'string' || !RAW_HEADER_NAME.test(name)) return indices;
    if (typeof items[i + 1] !== 'string') return indices;
    if (isKnownHeaderName(name)) sawKnownName = true;
  }
  if (!sawKnownName) return indices;
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

/** Advances cursors over an object key; `matched` is true when a rule ends on this key. */
function stepKey(cursors: readonly Cursor[], folded: string): { matched: boolean; next: Cursor[] } {
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
function stepElement(cursors: readonly Cursor[]): { matched: boolean; next: Cursor[] } {
  let matched = false;
  const next: Cursor[] = [];
  for (const cursor of cursors) {
    if (cursor.steps[cursor.index]?.kind !== 'elements') continue;
    if (cursor.index + 1 === cursor.steps.length) matched = true;
    else next.push({ steps: cursor.steps, index: cursor.index + 1 });
  }
  return { matched, next };
}

function walk(ctx: Context, value: unknown, cursors: readonly Cursor[]): unknown {
  if (typeof value === 'string') return maskHeaderBlock(ctx, value);
  if (Array.isArray(value)) {
    const shaped = headerShapeIndices(ctx, value);
    const element = stepElement(cursors);
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i += 1) {
      const replace = element.matched || shaped.has(i);
      out.push(replace ? REDACTED : walk(ctx, value[i], element.next));
    }
    return out;
  }
  if (isPlainObject(value)) {
    const replaceValueKey = isSecretNameValueObject(ctx, value);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const folded = foldName(key);
      const step = stepKey(cursors, folded);
      const replace =
        step.matched ||
        isFoldedBuiltInSecretName(folded) ||
        ctx.anyDepth.has(folded) ||
        (replaceValueKey && key === 'value');
      setOwn(out, key, replace ? REDACTED : walk(ctx, value[key], step.next));
    }
    return out;
  }
  return value;
}

/**
 * Returns a redactor for one set of rules, so that an event's roots share one compiled context.
 * Pass no rules where operator rules do not apply (input/output under full capture).
 */
export function createRedactor(rules: readonly CompiledRule[] = []): (value: unknown) => unknown {
  const ctx = createContext(rules);
  return (value) => walk(ctx, value, ctx.rootCursors);
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
