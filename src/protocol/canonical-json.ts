// The canonical form hashed for idempotency (event-protocol section 7): one spelling per value,
// so that key order, white space, number spelling (`1.0` vs `1`) and unknown fields never turn
// a resend into a conflict, while any change of a value does.

import type { ValidEvent } from './envelope.ts';

/**
 * Compact JSON with object keys sorted recursively by UTF-16 code unit, arrays in order,
 * numbers in shortest round-trip form and strings escaped exactly as JSON.stringify does
 * (lone surrogates as `\udxxx`). Like JSON.stringify, object members whose value is undefined
 * are left out. Throws TypeError for what JSON cannot hold (non-finite numbers, bigints…):
 * a validated event holds none.
 */
export function canonicalJson(value: unknown): string {
  return write(value);
}

/**
 * The canonical form of a validated event: its protocol fields only (unknown fields were
 * dropped by validation), without protocolVersion and without the derived timestampMs.
 */
export function canonicalEventJson(event: ValidEvent): string {
  const { timestampMs: _derived, ...protocolFields } = event;
  return canonicalJson(protocolFields);
}

/** The characters JSON.stringify escapes in a string (a paired surrogate is left to it too). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON.stringify writes it; most need no escape and are only quoted. */
function quote(text: string): string {
  return ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * Keys repeat from event to event (payload field names), so each one's written form is kept.
 * Bounded in count and length so that a stream of distinct keys costs a fixed amount of memory.
 */
const KEY_TEXT = new Map<string, string>();
const KEY_TEXT_LIMIT = 10_000;
const KEY_TEXT_MAX_LENGTH = 64;

function keyText(key: string): string {
  let text = KEY_TEXT.get(key);
  if (text === undefined) {
    text = `${quote(key)}:`;
    if (key.length <= KEY_TEXT_MAX_LENGTH && KEY_TEXT.size < KEY_TEXT_LIMIT) KEY_TEXT.set(key, text);
  }
  return text;
}

// Built by string concatenation, which V8 joins once at the end: about a fifth faster than
// collecting parts in an array on event-sized values (docs/benchmarks.md, Ingestion).
function write(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // Number-to-string is the shortest round-trip form; JSON.stringify writes -0 as 0.
      if (!Number.isFinite(value)) throw new TypeError(`Cannot canonicalize the number ${value}`);
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? writeArray(value) : writeObject(value as Record<string, unknown>);
    default:
      throw new TypeError(`Cannot canonicalize a value of type ${typeof value}`);
  }
}

function writeArray(items: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    const item = items[i];
    // As JSON.stringify: an undefined element is written as null.
    out += item === undefined ? 'null' : write(item);
  }
  return `${out}]`;
}

function writeObject(obj: Record<string, unknown>): string {
  // The default sort compares UTF-16 code units, which is what section 7 asks for.
  const keys = Object.keys(obj);
  if (keys.length > 1) keys.sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = obj[key];
    if (member === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += keyText(key) + write(member);
  }
  return `${out}}`;
}
