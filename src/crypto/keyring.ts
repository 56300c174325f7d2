// The keyring turns ENCRYPTION_KEY (and, during a rotation, ENCRYPTION_KEY_PREVIOUS) into the
// purpose-bound subkeys the service uses. Each purpose gets its own HKDF output so that a
// value produced for one purpose (say a search token) can never be replayed as another (a
// content hash or an API-key hash), and so that no raw key string is ever fed to a primitive.
//
// Subkeys live in a closure as KeyObjects: they are not properties of the returned object, so
// logging or JSON-serializing a keyring cannot leak them.

import { createSecretKey, hkdfSync } from 'node:crypto';
import { isWellFormedText } from '../protocol/identifiers.ts';
import type { KeyObject } from 'node:crypto';

/** Which configured key: the one we write under, or the outgoing one we still read. */
export type KeyRole = 'current' | 'previous';

export type SubkeyPurpose = 'fieldEncryption' | 'searchToken' | 'apiKeyPepper' | 'contentHash' | 'analysisState';

// Fixed salt: the input is an operator secret, not a DH output, so a constant domain-separating
// salt is what RFC 5869 suggests when no random salt can be stored alongside the key.
const HKDF_SALT = Buffer.from('jtrace/keyring/v1', 'utf8');

// Changing any of these labels changes every derived value: treat them as part of the
// storage format.
const PURPOSE_LABELS: Readonly<Record<SubkeyPurpose, string>> = {
  fieldEncryption: 'jtrace/field-encryption/v1',
  searchToken: 'jtrace/search-token/v1',
  apiKeyPepper: 'jtrace/api-key-pepper/v1',
  contentHash: 'jtrace/content-hash/v1',
  analysisState: 'jtrace/analysis-state/v1',
};
const KEY_ID_LABEL = 'jtrace/key-id/v1';

const SUBKEY_BYTES = 32;
// 4 bytes = 8 hex characters. Only two keys are ever configured at once and we refuse a
// collision between them, so 32 bits is plenty to tell them apart.
const KEY_ID_BYTES = 4;

/** Shape of a key id as it appears inside stored values. */
export const KEY_ID_PATTERN = /^[0-9a-f]{8}$/;

export interface KeyringOptions {
  /** ENCRYPTION_KEY, already trimmed by config. */
  current: string;
  /** ENCRYPTION_KEY_PREVIOUS, already trimmed; null, undefined or '' means no rotation. */
  previous?: string | null;
}

export interface Keyring {
  readonly currentKeyId: string;
  readonly previousKeyId: string | null;
  /** True when keyId names the current or the previous key. */
  hasKey(keyId: string): boolean;
  /** 'current' / 'previous' for a configured key id, null otherwise. */
  roleOf(keyId: string): KeyRole | null;
  /** Configured key ids, current first. */
  keyIds(): readonly string[];
  /** The subkey for a purpose under a role; null when that role is not configured. */
  subkey(purpose: SubkeyPurpose, role: KeyRole): KeyObject | null;
  /** The subkey for a purpose under the key a stored value names; null when not configured. */
  subkeyById(purpose: SubkeyPurpose, keyId: string): KeyObject | null;
}

interface KeyMaterial {
  readonly keyId: string;
  readonly subkeys: Readonly<Record<SubkeyPurpose, KeyObject>>;
}

function hkdf(ikm: Buffer, label: string, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, HKDF_SALT, Buffer.from(label, 'utf8'), length));
}

/** Derive the key id of a key string (exported for tests and for diagnostics such as rotate:status). */
export function deriveKeyId(keyString: string): string {
  return hkdf(Buffer.from(keyString, 'utf8'), KEY_ID_LABEL, KEY_ID_BYTES).toString('hex');
}

function deriveMaterial(keyString: string): KeyMaterial {
  const ikm = Buffer.from(keyString, 'utf8');
  const subkeys = {} as Record<SubkeyPurpose, KeyObject>;
  for (const purpose of Object.keys(PURPOSE_LABELS) as SubkeyPurpose[]) {
    const raw = hkdf(ikm, PURPOSE_LABELS[purpose], SUBKEY_BYTES);
    subkeys[purpose] = createSecretKey(raw);
    // createSecretKey copies the bytes; wipe our temporary copy.
    raw.fill(0);
  }
  ikm.fill(0);
  return { keyId: deriveKeyId(keyString), subkeys: Object.freeze(subkeys) };
}

export function createKeyring(options: KeyringOptions): Keyring {
  // Error messages never quote key material.
  if (typeof options.current !== 'string' || options.current.length === 0) {
    throw new Error('ENCRYPTION_KEY is empty');
  }
  const previousString =
    options.previous === undefined || options.previous === null || options.previous === ''
      ? null
      : options.previous;
  if (previousString !== null && previousString === options.current) {
    throw new Error('ENCRYPTION_KEY_PREVIOUS is identical to ENCRYPTION_KEY');
  }
  const current = deriveMaterial(options.current);
  const previous = previousString === null ? null : deriveMaterial(previousString);
  if (previous !== null && previous.keyId === current.keyId) {
    // Different keys, same 32-bit id: stored values could no longer say which key wrote them.
    throw new Error('ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS have colliding key ids; choose another new key');
  }

  const byRole = (role: KeyRole): KeyMaterial | null => (role === 'current' ? current : previous);
  const roleOf = (keyId: string): KeyRole | null => {
    if (keyId === current.keyId) return 'current';
    if (previous !== null && keyId === previous.keyId) return 'previous';
    return null;
  };
  const ids = Object.freeze(previous === null ? [current.keyId] : [current.keyId, previous.keyId]);

  return Object.freeze({
    currentKeyId: current.keyId,
    previousKeyId: previous?.keyId ?? null,
    hasKey: (keyId: string) => roleOf(keyId) !== null,
    roleOf,
    keyIds: () => ids,
    subkey: (purpose: SubkeyPurpose, role: KeyRole) => byRole(role)?.subkeys[purpose] ?? null,
    subkeyById: (purpose: SubkeyPurpose, keyId: string) => {
      const role = roleOf(keyId);
      return role === null ? null : (byRole(role)?.subkeys[purpose] ?? null);
    },
  });
}

/** The subkey for a role, or a programming error when the role is not configured. */
export function requireSubkey(keyring: Keyring, purpose: SubkeyPurpose, role: KeyRole): { keyId: string; key: KeyObject } {
  const key = keyring.subkey(purpose, role);
  const keyId = role === 'current' ? keyring.currentKeyId : keyring.previousKeyId;
  if (key === null || keyId === null) {
    throw new Error(`no ${role} encryption key is configured`);
  }
  return { keyId, key };
}

/**
 * UTF-8 bytes of a string. Node would silently turn an unpaired surrogate into U+FFFD, which
 * would make two different inputs encrypt or hash alike; the ingest storability check refuses
 * such strings earlier, so reaching here with one is a bug and we throw. U+0000 is fine.
 */
export function utf8Bytes(value: string): Buffer {
  return Buffer.from(encodableText(value), 'utf8');
}

/**
 * The string itself once it is known to encode to UTF-8 unchanged (the check of utf8Bytes), for
 * a hash to read as UTF-8 directly: the same bytes without making a Buffer of them first.
 */
export function encodableText(value: string): string {
  if (!isWellFormedText(value)) {
    throw new TypeError('string contains an unpaired surrogate and cannot be encoded as UTF-8');
  }
  return value;
}
