// Encryption of stored identifiers (entity ids, alias values, destination header values).
//
// Stored form: `v1.<keyId>.<iv>.<ciphertext+tag>` (base64url, no padding). Naming the key id in
// the value lets reads pick the right key during a rotation and lets rotate:reencrypt and
// rotate:status find what is still under the previous key without decrypting anything.
//
// AES-256-GCM with a random 96-bit IV: safe for far more than the 2^32 encryptions per key that
// NIST allows with random IVs; a key rotation resets the count anyway.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KEY_ID_PATTERN, requireSubkey, utf8Bytes } from './keyring.ts';
import type { Keyring } from './keyring.ts';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]*$/;
// Fatal: after GCM authentication the bytes are ours, but refuse rather than guess if not UTF-8.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

interface ParsedField {
  keyId: string;
  iv: Buffer;
  sealed: Buffer;
}

// The header is authenticated too, so a value cannot be relabelled with another key id or
// format version without failing the tag check.
function headerAad(keyId: string): Buffer {
  return Buffer.from(`${VERSION}.${keyId}`, 'ascii');
}

function parse(stored: string): ParsedField | null {
  if (typeof stored !== 'string') return null;
  const parts = stored.split('.');
  if (parts.length !== 4) return null;
  const [version, keyId, ivText, sealedText] = parts as [string, string, string, string];
  if (version !== VERSION || !KEY_ID_PATTERN.test(keyId)) return null;
  // Strict base64url: Buffer.from would silently skip stray characters.
  if (!B64URL.test(ivText) || !B64URL.test(sealedText)) return null;
  const iv = Buffer.from(ivText, 'base64url');
  const sealed = Buffer.from(sealedText, 'base64url');
  if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES) return null;
  return { keyId, iv, sealed };
}

/**
 * IVs come from a pool of random bytes drawn 256 IVs at a time: one call into the CSPRNG instead
 * of one per value (a batch encrypts dozens). Each pool's bytes are handed out once, and a spent
 * pool is replaced by a new buffer, never refilled, so no IV's bytes are ever reused.
 */
const IV_POOL_BYTES = IV_BYTES * 256;
let ivPool = Buffer.alloc(0);
let ivOffset = 0;

function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomBytes(IV_POOL_BYTES);
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

/** Encrypt under the current key. Plaintext may hold U+0000; an unpaired surrogate throws. */
export function encryptField(keyring: Keyring, plaintext: string): string {
  const { keyId, key } = requireSubkey(keyring, 'fieldEncryption', 'current');
  const iv = nextIv();
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(headerAad(keyId));
  const sealed = Buffer.concat([cipher.update(utf8Bytes(plaintext)), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${keyId}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
}

/**
 * Decrypt a stored value under whichever configured key it names (current or previous).
 * Null when that key is not configured, the value is malformed, or authentication fails:
 * the caller shows null ("key gone") rather than failing the whole read.
 */
export function decryptField(keyring: Keyring, stored: string): string | null {
  const parsed = parse(stored);
  if (parsed === null) return null;
  const key = keyring.subkeyById('fieldEncryption', parsed.keyId);
  if (key === null) return null;
  const body = parsed.sealed.subarray(0, parsed.sealed.length - TAG_BYTES);
  const tag = parsed.sealed.subarray(parsed.sealed.length - TAG_BYTES);
  try {
    const decipher = createDecipheriv(ALGORITHM, key, parsed.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(headerAad(parsed.keyId));
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(body), decipher.final()]);
    return UTF8.decode(plain);
  } catch {
    return null;
  }
}

/** The key id a stored value names, or null when it is not a stored field value. */
export function fieldKeyId(stored: string): string | null {
  return parse(stored)?.keyId ?? null;
}

export type ReencryptResult =
  | { status: 'current'; stored: string }
  | { status: 'reencrypted'; stored: string }
  | { status: 'unreadable' };

/**
 * For rotate:reencrypt: move one value under the current key. A value already under the
 * current key is returned untouched (no needless rewrite); one that cannot be read is reported
 * so the caller can count it rather than destroy it.
 */
export function reencryptField(keyring: Keyring, stored: string): ReencryptResult {
  if (fieldKeyId(stored) === keyring.currentKeyId) return { status: 'current', stored };
  const plain = decryptField(keyring, stored);
  if (plain === null) return { status: 'unreadable' };
  return { status: 'reencrypted', stored: encryptField(keyring, plain) };
}
