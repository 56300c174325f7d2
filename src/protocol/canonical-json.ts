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
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

/**
 * The canonical form of a validated event: its protocol fields only (unknown fields were
 * dropped by validation), without protocolVersion and without the derived timestampMs.
 */
export function canonicalEventJson(event: ValidEvent): string {
  const { timestampMs: _derived, ...protocolFields } = event;
  return canonicalJson(protocolFields);
}

function write(value: unknown, parts: string[]): void {
  switch (typeof value) {
    case 'string':
      parts.push(JSON.stringify(value));
      return;
    case 'boolean':
      parts.push(value ? 'true' : 'false');
      return;
    case 'number':
      // Number-to-string is the shortest round-trip form; JSON.stringify writes -0 as 0.
      if (!Number.isFinite(value)) throw new TypeError(`Cannot canonicalize the number ${value}`);
      parts.push(JSON.stringify(value));
      return;
    case 'object':
      if (value === null) parts.push('null');
      else if (Array.isArray(value)) writeArray(value, parts);
      else writeObject(value as Record<string, unknown>, parts);
      return;
    default:
      throw new TypeError(`Cannot canonicalize a value of type ${typeof value}`);
  }
}

function writeArray(items: readonly unknown[], parts: string[]): void {
  parts.push('[');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(',');
    const item = items[i];
    // As JSON.stringify: an undefined element is written as null.
    if (item === undefined) parts.push('null');
    else write(item, parts);
  }
  parts.push(']');
}

function writeObject(obj: Record<string, unknown>, parts: string[]): void {
  // The default sort compares UTF-16 code units, which is what section 7 asks for.
  const keys = Object.keys(obj).sort();
  parts.push('{');
  let first = true;
  for (const key of keys) {
    const member = obj[key];
    if (member === undefined) continue;
    if (!first) parts.push(',');
    first = false;
    parts.push(JSON.stringify(key), ':');
    write(member, parts);
  }
  parts.push('}');
}
