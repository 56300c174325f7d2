import { describe, expect, it } from 'vitest';
import { createKeyring } from './keyring.ts';
import { decryptField, encryptField, fieldKeyId, reencryptField } from './field-encryption.ts';

const KEY_ONE = 'jtrace test key one, not a real key';
const KEY_TWO = 'jtrace test key two, not a real key';
const KEY_THREE = 'jtrace test key three, not a real key';

function flipChar(text: string, index: number): string {
  const c = text[index]!;
  return text.slice(0, index) + (c === 'A' ? 'B' : 'A') + text.slice(index + 1);
}

describe('field encryption', () => {
  const ring = createKeyring({ current: KEY_ONE });

  it('round-trips, including U+0000, astral characters and the empty string', () => {
    for (const value of ['greenhouse:4567', 'a\u0000b', '\u{1D11E}é', '', 'x'.repeat(10_000)]) {
      expect(decryptField(ring, encryptField(ring, value))).toBe(value);
    }
  });

  it('uses the compact form naming the key, with a fresh IV each time', () => {
    const a = encryptField(ring, 'same');
    const b = encryptField(ring, 'same');
    expect(a).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(fieldKeyId(a)).toBe(ring.currentKeyId);
    expect(fieldKeyId('not a field')).toBeNull();
  });

  it('never gives two values the same IV, across the random pools IVs are drawn from', () => {
    const ivs = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const stored = encryptField(ring, `v${i}`);
      ivs.add(stored.split('.')[2]!);
      expect(decryptField(ring, stored)).toBe(`v${i}`);
    }
    expect(ivs.size).toBe(2_000);
  });

  it('reads values written under the previous key and writes under the new one', () => {
    const old = createKeyring({ current: KEY_TWO });
    const stored = encryptField(old, 'someone@example.com');
    const rotated = createKeyring({ current: KEY_ONE, previous: KEY_TWO });
    expect(decryptField(rotated, stored)).toBe('someone@example.com');
    expect(fieldKeyId(encryptField(rotated, 'x'))).toBe(rotated.currentKeyId);
  });

  it('reads null when the key that wrote the value is gone', () => {
    const stored = encryptField(createKeyring({ current: KEY_TWO }), 'v');
    expect(decryptField(createKeyring({ current: KEY_ONE }), stored)).toBeNull();
    expect(decryptField(createKeyring({ current: KEY_ONE, previous: KEY_THREE }), stored)).toBeNull();
  });

  it('detects tampering with the ciphertext, the tag, the IV or the key id', () => {
    const stored = encryptField(ring, 'tamper me');
    const [v, keyId, iv, sealed] = stored.split('.') as [string, string, string, string];
    expect(decryptField(ring, `${v}.${keyId}.${iv}.${flipChar(sealed, 0)}`)).toBeNull();
    expect(decryptField(ring, `${v}.${keyId}.${iv}.${flipChar(sealed, sealed.length - 2)}`)).toBeNull();
    expect(decryptField(ring, `${v}.${keyId}.${flipChar(iv, 0)}.${sealed}`)).toBeNull();
    // Relabelled as written by another configured key: authenticated header fails.
    const both = createKeyring({ current: KEY_ONE, previous: KEY_TWO });
    expect(decryptField(both, `${v}.${both.previousKeyId}.${iv}.${sealed}`)).toBeNull();
  });

  it('reads malformed values as null rather than throwing', () => {
    for (const bad of ['', 'v1', 'v2.ae6235b3.AAAAAAAAAAAAAAAA.AAAA', `v1.${ring.currentKeyId}.short.AAAA`, `v1.${ring.currentKeyId}.AAAAAAAAAAAAAAAA.AA`, `v1.${ring.currentKeyId}.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA*A`]) {
      expect(decryptField(ring, bad)).toBeNull();
    }
  });

  it('refuses to encrypt an unpaired surrogate (it would not round-trip)', () => {
    expect(() => encryptField(ring, 'a\uD800')).toThrow(TypeError);
  });

  it('reencryptField moves previous-key values and leaves current ones alone', () => {
    const oldValue = encryptField(createKeyring({ current: KEY_TWO }), 'alias');
    const rotated = createKeyring({ current: KEY_ONE, previous: KEY_TWO });
    const moved = reencryptField(rotated, oldValue);
    expect(moved.status).toBe('reencrypted');
    if (moved.status !== 'reencrypted') return;
    expect(fieldKeyId(moved.stored)).toBe(rotated.currentKeyId);
    expect(decryptField(createKeyring({ current: KEY_ONE }), moved.stored)).toBe('alias');
    expect(reencryptField(rotated, moved.stored)).toEqual({ status: 'current', stored: moved.stored });
    const lost = encryptField(createKeyring({ current: KEY_THREE }), 'gone');
    expect(reencryptField(rotated, lost)).toEqual({ status: 'unreadable' });
  });
});
