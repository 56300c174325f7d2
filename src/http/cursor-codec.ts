// The envelope of every keyset cursor (interface spec 4, "Pagination"): base64url of a small JSON
// object tagged `k` with the order it belongs to. Each route checks its own fields; this decides
// only whether the text is a cursor of that order that jtrace could have written.

import { errors } from './errors.ts';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeTaggedCursor(value: Record<string, string>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/**
 * The JSON object inside a cursor, holding exactly `keys` (`k` among them) with `k` equal to
 * `kind`; invalid_cursor for anything else, and for text over `maxLength`.
 */
export function decodeTaggedCursor(text: string, kind: string, keys: readonly string[], maxLength: number): Record<string, unknown> {
  if (text.length > maxLength || !BASE64URL.test(text)) throw errors.invalidCursor();
  const bytes = Buffer.from(text, 'base64url');
  // Node's decoder skips what it cannot read; only a canonical encoding is ours.
  if (bytes.toString('base64url') !== text) throw errors.invalidCursor();
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw errors.invalidCursor();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw errors.invalidCursor();
  const record = value as Record<string, unknown>;
  const actual = Object.keys(record).sort();
  const wanted = [...keys].sort();
  if (actual.length !== wanted.length || actual.some((key, index) => key !== wanted[index])) throw errors.invalidCursor();
  if (record.k !== kind) throw errors.invalidCursor();
  return record;
}
