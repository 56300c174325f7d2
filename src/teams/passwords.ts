// Passwords (docs/roles.md, "Passwords"): argon2id through @node-rs/argon2 with the library's
// defaults (19 MiB, 2 passes, 1 lane: the OWASP minimum for argon2id), 12 to 128 characters,
// no composition rules; refused when equal to the e-mail or on a short list of the passwords
// most often seen in breaches that are long enough to pass the length rule.

import { hash, verify } from '@node-rs/argon2';
import { isWellFormedText } from '../protocol/identifiers.ts';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 128;

/** Common passwords of 12 characters or more (breach corpora), compared case-insensitively. */
const COMMON_PASSWORDS = new Set([
  '123456789012', '1234567890123', '12345678901234', '123456789123', '1q2w3e4r5t6y', 'qwertyuiopas',
  'qwertyuiop123', 'qwerty123456', 'password1234', 'password12345', 'password123456', 'passwordpassword',
  'iloveyou1234', 'abcdefghijkl', 'abc123456789', 'aaaaaaaaaaaa', '111111111111', '000000000000',
  '1qaz2wsx3edc', 'qazwsxedcrfv', 'zaq12wsxcde3', 'administrator', 'adminadmin123', 'welcome12345',
  'letmein12345', 'changeme1234', 'monkey123456', 'football1234', 'baseball1234', 'sunshine1234',
  'princess1234', 'superman1234', 'trustno11234', 'starwars1234', 'dragon123456', 'master123456',
  'qwertyqwerty', 'asdfghjkl123', 'zxcvbnm12345', 'passw0rd1234', 'p@ssw0rd1234', 'p@ssword1234',
  'correcthorsebatterystaple', 'michael12345', 'jennifer1234', 'jordan231234', 'computer1234',
]);

/** Why a new password is refused, or null. Length counts code points, so no emoji is two. */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `The password must have at most ${MAX_PASSWORD_LENGTH} characters.`;
  if (password.includes('\u0000')) return 'The password holds a NUL character.';
  // Hashed as UTF-8, an unpaired surrogate becomes U+FFFD: every such password would be one.
  if (!isWellFormedText(password)) return 'The password holds an unpaired surrogate.';
  const lower = password.toLowerCase();
  if (lower === email.toLowerCase()) return 'The password must not be the e-mail address.';
  if (COMMON_PASSWORDS.has(lower)) return 'The password is one of the most common ones; choose another.';
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Verified against when the e-mail is unknown or has no password, so that answer costs the
// same time as a wrong password and timing does not tell which addresses have accounts.
let dummyHash: Promise<string> | null = null;

/** Whether the password matches the stored hash; with no stored hash, false after the same work. */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH * 4) return false;
  if (stored === null) {
    dummyHash ??= hash('jtrace timing equaliser, never a password');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
