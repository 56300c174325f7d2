// Storability (event-protocol 2.7 step 6, 12.5). PostgreSQL text and jsonb cannot hold U+0000,
// and an unpaired surrogate has no UTF-8 form: either would fail the insert as a 500 or be
// silently altered. Refusing them up front makes it a clean 400 unstorable_payload.
//
// Which values are checked is the caller's decision: only what is stored in the clear, after
// capture and redaction (a dropped or redacted value is never checked), and only
// hasUnpairedSurrogate for entity.id and alias values, which are stored encrypted and may
// hold U+0000.

import { hasNul, isWellFormedText } from './identifiers.ts';

/** True when the string holds a high surrogate not followed by a low one, or a lone low one. */
export function hasUnpairedSurrogate(text: string): boolean {
  return !isWellFormedText(text);
}

/** True when the string may be stored in a text or jsonb column. */
export function isStorableText(text: string): boolean {
  return !hasNul(text) && isWellFormedText(text);
}

/**
 * The path of the first string or key (document order, a key before its value) holding U+0000
 * or an unpaired surrogate, or null when the whole value is storable. Paths use the detail
 * form of 2.6 under `basePath` (segments joined by `.`, indices as numbers); a bad root string
 * returns `basePath` itself, "" by default.
 */
export function findUnstorable(value: unknown, basePath = ''): string | null {
  if (typeof value === 'string') return isStorableText(value) ? null : basePath;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], joinPath(basePath, String(i)));
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const path = joinPath(basePath, key);
      if (!isStorableText(key)) return path;
      const found = findUnstorable(record[key], path);
      if (found !== null) return found;
    }
  }
  return null;
}

function joinPath(parent: string, segment: string): string {
  return parent === '' ? segment : `${parent}.${segment}`;
}
