// A JSON value as PostgreSQL gives it back from jsonb: the same values with every object's keys
// in jsonb's order (shorter UTF-8 first, then by bytes). Findings computed at ingestion walk
// payloads in this shape, so that they walk them in the order the analyzer does after reading
// the stored text: the walk's order decides which findings come first and how renamed keys pair.

import { compareCodePoints } from '../protocol/code-point-order.ts';

/** jsonb's key order: UTF-8 length, then bytes (code point order is UTF-8 byte order). Keys are mostly ASCII: those compare without encoding. */
export function compareJsonbKeys(a: string, b: string): number {
  if (isAscii(a) && isAscii(b)) return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
  const lengthA = Buffer.byteLength(a, 'utf8');
  const lengthB = Buffer.byteLength(b, 'utf8');
  return lengthA !== lengthB ? lengthA - lengthB : compareCodePoints(a, b);
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

/**
 * A copy of a JSON value (as JSON.parse makes them) with object keys inserted in jsonb's order.
 * JavaScript then lists integer-like keys first, ascending, as it does for JSON.parse of
 * PostgreSQL's text: the copy iterates exactly as the stored value read back would.
 */
export function inJsonbOrder(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(inJsonbOrder);
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort(compareJsonbKeys)) {
    // JSON.parse makes "__proto__" an own key; an assignment would set the prototype instead.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: inJsonbOrder(source[key]), enumerable: true, writable: true, configurable: true });
    else copy[key] = inJsonbOrder(source[key]);
  }
  return copy;
}
