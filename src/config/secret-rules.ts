// Strength rules for the secrets, shared by the environment reader and by the embedded mode's
// generated secrets file, so a value is refused alike wherever it comes from.
//
// Every stored value names its key id, so a database dump lets anyone test key guesses offline:
// the encryption key must carry at least 256 bits of material. A string cannot prove it is
// random, so we accept the forms a generator produces and refuse what is obviously less:
//   - 64 or more hexadecimal characters (openssl rand -hex 32),
//   - 43 or more base64 / base64url characters, padding allowed (openssl rand -base64 32 gives 44),
//   - any other text of 32 or more bytes in UTF-8 that is not written in one of those two
//     alphabets (a long passphrase or raw random bytes),
// and in every form at least MIN_DISTINCT_CHARACTERS distinct characters, which refuses
// 'aaaa…' and similar fillers while a random value of those lengths fails it with a chance
// below 1e-11.

export const MIN_ADMIN_TOKEN_LENGTH = 32;
export const MIN_KEY_HEX_CHARACTERS = 64;
export const MIN_KEY_BASE64_CHARACTERS = 43;
export const MIN_KEY_BYTES = 32;
const MIN_DISTINCT_CHARACTERS = 10;

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export const ENCRYPTION_KEY_RULE =
  'must hold at least 256 bits of key material: 64 hex characters (openssl rand -hex 32), 44 base64 characters (openssl rand -base64 32), or 32 or more random bytes';

/** Null when the key is strong enough, else the rule it breaks (never quoting the key). */
export function weakEncryptionKeyReason(key: string): string | null {
  const distinct = new Set(key).size;
  let long: boolean;
  if (HEX.test(key)) long = key.length >= MIN_KEY_HEX_CHARACTERS;
  else if (BASE64.test(key)) long = key.replace(/=+$/, '').length >= MIN_KEY_BASE64_CHARACTERS;
  else long = Buffer.byteLength(key, 'utf8') >= MIN_KEY_BYTES;
  return long && distinct >= MIN_DISTINCT_CHARACTERS ? null : ENCRYPTION_KEY_RULE;
}

/** Null when the admin token is long enough, else the rule it breaks. */
export function weakAdminTokenReason(token: string): string | null {
  return token.length >= MIN_ADMIN_TOKEN_LENGTH ? null : `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters after trimming`;
}
