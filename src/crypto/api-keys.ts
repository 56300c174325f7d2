// Project-environment API keys. The secret is shown once; the database keeps only a clear
// prefix (to find the row and to name the key in key:list / key:revoke) and a peppered HMAC.
// The pepper derives from ENCRYPTION_KEY, so a database dump alone cannot be used to test
// guesses, and changing the key outright makes every issued key answer 401 (interface-spec 5).

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { requireSubkey } from './keyring.ts';
import type { KeyRole, Keyring } from './keyring.ts';

export const API_KEY_PREFIX = 'jtk_';
/** 24 random bytes = 192 bits = exactly 32 base64url characters, no padding. */
export const API_KEY_RANDOM_BYTES = 24;
export const API_KEY_RANDOM_CHARS = 32;
/** Characters of the random part kept in clear in the prefix. */
export const API_KEY_PREFIX_RANDOM_CHARS = 8;

const API_KEY_SHAPE = /^jtk_[A-Za-z0-9_-]{32}$/;
const HEX_HASH = /^[0-9a-f]{64}$/;

export interface GeneratedApiKey {
  /** The whole key, `jtk_` + 32 base64url characters: shown once, never stored. */
  secret: string;
  /** `jtk_` + first 8 random characters: stored in clear, names the key. */
  prefix: string;
}

export interface StoredApiKeyHash {
  keyId: string;
  /** HMAC-SHA256 of the whole secret under the api-key pepper, 64 lowercase hex characters. */
  hash: string;
}

function prefixOf(secret: string): string {
  return secret.slice(0, API_KEY_PREFIX.length + API_KEY_PREFIX_RANDOM_CHARS);
}

export function generateApiKey(): GeneratedApiKey {
  const secret = API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString('base64url');
  return { secret, prefix: prefixOf(secret) };
}

/**
 * The prefix of a presented bearer token, or null when it does not have the shape of an API
 * key (so it may be the admin token, or garbage). Cheap and needs no key: run it first.
 */
export function parseApiKeyShape(token: string): string | null {
  return typeof token === 'string' && API_KEY_SHAPE.test(token) ? prefixOf(token) : null;
}

/** Hash a secret for storage under the current key (or, for tests and tooling, the previous one). */
export function hashApiKey(keyring: Keyring, secret: string, which: KeyRole = 'current'): StoredApiKeyHash {
  const { keyId, key } = requireSubkey(keyring, 'apiKeyPepper', which);
  // The secret is ASCII by shape; 'utf8' is exact for it.
  return { keyId, hash: createHmac('sha256', key).update(secret, 'utf8').digest('hex') };
}

/**
 * Check a presented secret against a stored hash. Returns the role of the key the stored hash
 * is under ('previous' tells the caller to re-hash under the current key now that it has the
 * secret), or false: wrong secret, malformed hash, or a key id that is no longer configured.
 */
export function verifyApiKey(keyring: Keyring, secret: string, stored: StoredApiKeyHash): KeyRole | false {
  const role = keyring.roleOf(stored.keyId);
  if (role === null || !HEX_HASH.test(stored.hash)) return false;
  const { key } = requireSubkey(keyring, 'apiKeyPepper', role);
  const actual = createHmac('sha256', key).update(secret, 'utf8').digest();
  // Both sides are 32 bytes here, so timingSafeEqual cannot throw on a length mismatch.
  return timingSafeEqual(actual, Buffer.from(stored.hash, 'hex')) ? role : false;
}
