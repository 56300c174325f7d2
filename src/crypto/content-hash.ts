// Event content hashes decide "same event id, same content" (duplicate) versus "same id, other
// content" (409 event_id_conflict): event-protocol section 7. Keyed, so that a stored hash
// reveals nothing about payloads to someone holding a database dump.
//
// Hashes are never re-keyed: each stays under the key that wrote it and is compared under that
// key. Once that key is removed a resend can no longer be proven identical, so it is a
// permanent conflict.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { encodableText, requireSubkey } from './keyring.ts';
import type { Keyring } from './keyring.ts';

export interface StoredContentHash {
  keyId: string;
  /** HMAC-SHA256 of the canonical form, 64 lowercase hex characters. */
  hash: string;
}

const HEX_HASH = /^[0-9a-f]{64}$/;

/** Hash the canonical form (section 7) under the current content-hash key. */
export function contentHash(keyring: Keyring, canonical: string): StoredContentHash {
  const { keyId, key } = requireSubkey(keyring, 'contentHash', 'current');
  return { keyId, hash: createHmac('sha256', key).update(encodableText(canonical), 'utf8').digest('hex') };
}

/**
 * Compare a canonical form with a stored hash under the key the stored hash names.
 * 'key_missing' when that key is no longer configured: callers answer 409 event_id_conflict.
 */
export function contentHashMatches(
  keyring: Keyring,
  canonical: string,
  stored: StoredContentHash,
): boolean | 'key_missing' {
  const key = keyring.subkeyById('contentHash', stored.keyId);
  if (key === null) return 'key_missing';
  if (!HEX_HASH.test(stored.hash)) return false;
  const actual = createHmac('sha256', key).update(encodableText(canonical), 'utf8').digest();
  // Not secret-bearing in the usual sense, but constant time costs nothing here.
  return timingSafeEqual(actual, Buffer.from(stored.hash, 'hex'));
}
