// Admin token comparison. Hashing both sides first gives two 32-byte digests, so
// timingSafeEqual never sees unequal lengths and the time taken does not reveal the length of
// the expected token or how many leading characters matched.

import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  // UTF-16LE is a lossless encoding of any JS string (UTF-8 would map every unpaired surrogate
  // to U+FFFD and make distinct strings compare equal).
  return createHash('sha256').update(value, 'utf16le').digest();
}

export function adminTokenMatches(expected: string, presented: string): boolean {
  const equal = timingSafeEqual(digest(expected), digest(presented));
  // An unset or empty expected token must never match an empty presented one.
  return equal && expected.length > 0;
}
