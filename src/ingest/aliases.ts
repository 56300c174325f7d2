// Alias normalization (event-protocol 4.2) and masking (4.3, 12.2).

import {
  MASK_ELLIPSIS,
  MASK_HEAD_CODE_POINTS,
  MASK_HIDE_ALL_MAX_CODE_POINTS,
  MASK_TAIL_CODE_POINTS,
} from './limits.ts';

// 8-4-4-4-12 hex digits, any version or variant: callers copy UUIDs in either case.
const UUID_FORM = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/**
 * The form an entity id or alias value is matched by (search token, identity of an alias):
 * surrounding white space trimmed, a UUID-form value lower-cased, nothing else. Other values
 * keep their case: identifiers such as Salesforce ids are case-sensitive.
 */
export function normalizeIdentifier(value: string): string {
  // String.prototype.trim removes Unicode white space and line terminators (incl. U+FEFF).
  const trimmed = value.trim();
  return UUID_FORM.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}

/**
 * The masked display form: first 4 code points, `…`, last 3 (`someone@example.com` →
 * `some…com`). Values of 8 code points or fewer become `…` alone. Counting code points keeps
 * a character outside the BMP whole instead of showing half a surrogate pair.
 */
export function maskAliasValue(value: string): string {
  const codePoints = Array.from(value);
  if (codePoints.length <= MASK_HIDE_ALL_MAX_CODE_POINTS) return MASK_ELLIPSIS;
  const head = codePoints.slice(0, MASK_HEAD_CODE_POINTS).join('');
  const tail = codePoints.slice(codePoints.length - MASK_TAIL_CODE_POINTS).join('');
  return `${head}${MASK_ELLIPSIS}${tail}`;
}
