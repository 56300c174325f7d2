// Search tokens let the database find an encrypted identifier by exact value without holding
// the value: the token is a keyed MAC of the normalized value, so equal values give equal
// tokens, and nobody without ENCRYPTION_KEY can test a guess against the index.
//
// A token depends on the key, so during a rotation a value may be indexed under either key.
// Tokens are therefore stored next to the key id that made them, and a lookup asks for the
// token of every configured key.
//
// Normalization (trim, lower-case UUID form: event-protocol 4.2) is the caller's job; the
// value given here is hashed exactly as given.

import { createHmac } from 'node:crypto';
import { encodableText, requireSubkey } from './keyring.ts';
import type { KeyRole, Keyring } from './keyring.ts';

export interface SearchToken {
  keyId: string;
  /** HMAC-SHA256, 64 lowercase hex characters. */
  token: string;
}

/** The token of a normalized value under the current or the previous key (throws if that key is not configured). */
export function searchToken(keyring: Keyring, normalizedValue: string, which: KeyRole): string {
  const { key } = requireSubkey(keyring, 'searchToken', which);
  return createHmac('sha256', key).update(encodableText(normalizedValue), 'utf8').digest('hex');
}

/** What to store when writing: the token under the current key, with that key's id. */
export function searchTokenForWrite(keyring: Keyring, normalizedValue: string): SearchToken {
  return { keyId: keyring.currentKeyId, token: searchToken(keyring, normalizedValue, 'current') };
}

/** What to look for when reading: one token per configured key, current first. */
export function searchTokensForLookup(keyring: Keyring, normalizedValue: string): SearchToken[] {
  const tokens = [searchTokenForWrite(keyring, normalizedValue)];
  if (keyring.previousKeyId !== null) {
    tokens.push({ keyId: keyring.previousKeyId, token: searchToken(keyring, normalizedValue, 'previous') });
  }
  return tokens;
}
