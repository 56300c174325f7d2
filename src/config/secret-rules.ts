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
//
// Length and distinct characters say nothing about a pattern: 16 random hex characters written
// four times pass both and carry 64 bits, not 256. So both secrets (the admin token keys the
// session signatures) must also be free of repetition: no stretch of REPEATED_STRETCH
// characters may occur twice (overlaps count, so 'aaaa…' repeats too). A random value of the
// shortest accepted forms holds such a repeat with a chance below 1e-9 (32 hex characters:
// about 250 pairs of positions × 16^-10). The admin token needs MIN_ADMIN_DISTINCT_CHARACTERS
// distinct characters: 32 hex characters (openssl rand -hex 16) have fewer with a chance of
// 4e-8, 32 identical ones always.

export const MIN_ADMIN_TOKEN_LENGTH = 32;
export const MIN_KEY_HEX_CHARACTERS = 64;
export const MIN_KEY_BASE64_CHARACTERS = 43;
export const MIN_KEY_BYTES = 32;
const MIN_DISTINCT_CHARACTERS = 10;
const MIN_ADMIN_DISTINCT_CHARACTERS = 8;
/** Characters in a stretch that must not occur twice in a secret. */
export const REPEATED_STRETCH = 10;

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export const ENCRYPTION_KEY_RULE =
  'must hold at least 256 bits of key material: 64 hex characters (openssl rand -hex 32), 44 base64 characters (openssl rand -base64 32), or 32 or more random bytes';

const REPEAT_RULE = `has too little entropy: the same ${REPEATED_STRETCH} characters occur twice in it (a repeated pattern); use a random value`;

/** True when some stretch of REPEATED_STRETCH characters (UTF-16 units) occurs twice, overlaps included. */
export function hasRepeatedStretch(secret: string): boolean {
  const seen = new Set<string>();
  for (let start = 0; start + REPEATED_STRETCH <= secret.length; start += 1) {
    const stretch = secret.slice(start, start + REPEATED_STRETCH);
    if (seen.has(stretch)) return true;
    seen.add(stretch);
  }
  return false;
}

/** Null when the key is strong enough, else the rule it breaks (never quoting the key). */
export function weakEncryptionKeyReason(key: string): string | null {
  const distinct = new Set(key).size;
  let long: boolean;
  if (HEX.test(key)) long = key.length >= MIN_KEY_HEX_CHARACTERS;
  else if (BASE64.test(key)) long = key.replace(/=+$/, '').length >= MIN_KEY_BASE64_CHARACTERS;
  else long = Buffer.byteLength(key, 'utf8') >= MIN_KEY_BYTES;
  if (!long || distinct < MIN_DISTINCT_CHARACTERS) return ENCRYPTION_KEY_RULE;
  return hasRepeatedStretch(key) ? `${REPEAT_RULE} (openssl rand -hex 32)` : null;
}

/** Null when the admin token is long and varied enough, else the rule it breaks. */
export function weakAdminTokenReason(token: string): string | null {
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) return `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters after trimming`;
  if (new Set(token).size < MIN_ADMIN_DISTINCT_CHARACTERS) {
    return `has too little entropy: fewer than ${MIN_ADMIN_DISTINCT_CHARACTERS} different characters; use a random value (openssl rand -base64 48)`;
  }
  return hasRepeatedStretch(token) ? `${REPEAT_RULE} (openssl rand -base64 48)` : null;
}
