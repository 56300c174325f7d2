import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isWellFormedText } from '../protocol/identifiers.ts';
import { createKeyring, deriveKeyId, utf8Bytes } from './keyring.ts';

const KEY_ONE = 'jtrace test key one, not a real key';
const KEY_TWO = 'jtrace test key two, not a real key';

// RFC 5869 written out with HMAC, independent of hkdfSync, to pin the derivation.
function referenceHkdf(ikm: string, info: string, length: number): Buffer {
  const prk = createHmac('sha256', Buffer.from('jtrace/keyring/v1')).update(ikm, 'utf8').digest();
  let block = Buffer.alloc(0);
  const out: Buffer[] = [];
  for (let i = 1; Buffer.concat(out).length < length; i++) {
    block = createHmac('sha256', prk).update(Buffer.concat([block, Buffer.from(info), Buffer.from([i])])).digest();
    out.push(block);
  }
  return Buffer.concat(out).subarray(0, length);
}

describe('createKeyring', () => {
  it('derives stable key ids (known answers: same in every process)', () => {
    expect(deriveKeyId(KEY_ONE)).toBe('ae6235b3');
    expect(deriveKeyId(KEY_TWO)).toBe('d0a37e8b');
    expect(deriveKeyId(KEY_ONE)).toBe(referenceHkdf(KEY_ONE, 'jtrace/key-id/v1', 4).toString('hex'));
    const ring = createKeyring({ current: KEY_ONE, previous: KEY_TWO });
    expect(ring.currentKeyId).toBe('ae6235b3');
    expect(ring.previousKeyId).toBe('d0a37e8b');
  });

  it('key id is not the key and does not contain it', () => {
    const ring = createKeyring({ current: KEY_ONE });
    expect(ring.currentKeyId).toMatch(/^[0-9a-f]{8}$/);
    expect(KEY_ONE).not.toContain(ring.currentKeyId);
  });

  it('derives four distinct subkeys matching the reference HKDF', () => {
    const ring = createKeyring({ current: KEY_ONE });
    const purposes = ['fieldEncryption', 'searchToken', 'apiKeyPepper', 'contentHash'] as const;
    const labels = ['jtrace/field-encryption/v1', 'jtrace/search-token/v1', 'jtrace/api-key-pepper/v1', 'jtrace/content-hash/v1'];
    const exported = purposes.map((p) => ring.subkey(p, 'current')!.export().toString('hex'));
    expect(new Set(exported).size).toBe(4);
    purposes.forEach((_, i) => {
      expect(exported[i]).toBe(referenceHkdf(KEY_ONE, labels[i]!, 32).toString('hex'));
    });
  });

  it('hasKey / roleOf / keyIds', () => {
    const ring = createKeyring({ current: KEY_ONE, previous: KEY_TWO });
    expect(ring.hasKey('ae6235b3')).toBe(true);
    expect(ring.hasKey('d0a37e8b')).toBe(true);
    expect(ring.hasKey('00000000')).toBe(false);
    expect(ring.roleOf('d0a37e8b')).toBe('previous');
    expect(ring.keyIds()).toEqual(['ae6235b3', 'd0a37e8b']);
    expect(ring.subkeyById('searchToken', '00000000')).toBeNull();
  });

  it('an empty or missing previous key means no rotation', () => {
    for (const previous of [undefined, null, '']) {
      const ring = createKeyring({ current: KEY_ONE, previous });
      expect(ring.previousKeyId).toBeNull();
      expect(ring.subkey('fieldEncryption', 'previous')).toBeNull();
      expect(ring.keyIds()).toEqual([ring.currentKeyId]);
    }
  });

  it('refuses an empty current key and identical keys, without quoting them', () => {
    expect(() => createKeyring({ current: '' })).toThrow(/ENCRYPTION_KEY/);
    try {
      createKeyring({ current: KEY_ONE, previous: KEY_ONE });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).toMatch(/identical/);
      expect(String(error)).not.toContain(KEY_ONE);
    }
  });

  it('does not expose key material when logged or serialized', () => {
    const ring = createKeyring({ current: KEY_ONE, previous: KEY_TWO });
    const secretHex = ring.subkey('fieldEncryption', 'current')!.export().toString('hex');
    const shown = inspect(ring, { depth: 10, showHidden: true }) + JSON.stringify(ring);
    expect(shown).not.toContain(KEY_ONE);
    expect(shown).not.toContain(secretHex);
  });
});

describe('utf8Bytes', () => {
  it('keeps U+0000 and astral characters, refuses unpaired surrogates', () => {
    expect(utf8Bytes('a\u0000b')).toEqual(Buffer.from([0x61, 0, 0x62]));
    expect(utf8Bytes('\u{1D11E}').length).toBe(4);
    expect(isWellFormedText('\uD834\uDD1E')).toBe(true);
    expect(isWellFormedText('x\uD834')).toBe(false);
    expect(isWellFormedText('\uDD1Ex')).toBe(false);
    expect(() => utf8Bytes('\uD800')).toThrow(TypeError);
  });
});
