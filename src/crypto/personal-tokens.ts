// Personal access tokens: `jtp_` + 192 random bits, stored like API keys (a clear prefix that
// names the token and a peppered HMAC of the whole secret under the api-key pepper). The two
// prefixes differ, so a token can never be taken for an API key or the other way round.

import { randomBytes } from 'node:crypto';
import { hashApiKey, verifyApiKey, type StoredApiKeyHash } from './api-keys.ts';
import type { KeyRole, Keyring } from './keyring.ts';

export const PERSONAL_TOKEN_PREFIX = 'jtp_';
/** 24 random bytes = 192 bits = 32 base64url characters. */
const RANDOM_BYTES = 24;
/** Characters of the random part kept in clear in the prefix. */
const PREFIX_RANDOM_CHARS = 8;
const SHAPE = /^jtp_[A-Za-z0-9_-]{32}$/;

export interface GeneratedPersonalToken {
  secret: string;
  prefix: string;
}

const prefixOf = (secret: string) => secret.slice(0, PERSONAL_TOKEN_PREFIX.length + PREFIX_RANDOM_CHARS);

export function generatePersonalToken(): GeneratedPersonalToken {
  const secret = PERSONAL_TOKEN_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
  return { secret, prefix: prefixOf(secret) };
}

/** The prefix of a bearer token shaped like a personal token, or null. */
export function parsePersonalTokenShape(token: string): string | null {
  return SHAPE.test(token) ? prefixOf(token) : null;
}

export function hashPersonalToken(keyring: Keyring, secret: string): StoredApiKeyHash {
  return hashApiKey(keyring, secret, 'current');
}

export function verifyPersonalToken(keyring: Keyring, secret: string, stored: StoredApiKeyHash): KeyRole | false {
  return verifyApiKey(keyring, secret, stored);
}
