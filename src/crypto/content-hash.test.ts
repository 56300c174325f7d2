import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeyring, requireSubkey } from './keyring.ts';
import { contentHash, contentHashMatches } from './content-hash.ts';

const KEY_ONE = 'jtrace test key one, not a real key';
const KEY_TWO = 'jtrace test key two, not a real key';
const CANONICAL = '{"entity":{"id":"1","type":"t"},"id":"evt_1"}';

describe('content hash', () => {
  it('hashes under the current key and matches only the same canonical form', () => {
    const ring = createKeyring({ current: KEY_ONE });
    const stored = contentHash(ring, CANONICAL);
    expect(stored.keyId).toBe(ring.currentKeyId);
    expect(stored.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHashMatches(ring, CANONICAL, stored)).toBe(true);
    expect(contentHashMatches(ring, CANONICAL.replace('evt_1', 'evt_2'), stored)).toBe(false);
  });

  it('compares under the key the stored hash names (previous key still configured)', () => {
    const stored = contentHash(createKeyring({ current: KEY_TWO }), CANONICAL);
    const rotated = createKeyring({ current: KEY_ONE, previous: KEY_TWO });
    expect(contentHashMatches(rotated, CANONICAL, stored)).toBe(true);
    expect(contentHashMatches(rotated, '{}', stored)).toBe(false);
  });

  it("answers 'key_missing' once the key that wrote it is removed", () => {
    const stored = contentHash(createKeyring({ current: KEY_TWO }), CANONICAL);
    expect(contentHashMatches(createKeyring({ current: KEY_ONE }), CANONICAL, stored)).toBe('key_missing');
  });

  it('is the HMAC of the UTF-8 bytes of the canonical form, for any text', () => {
    const ring = createKeyring({ current: KEY_ONE });
    const { key } = requireSubkey(ring, 'contentHash', 'current');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const expected = createHmac('sha256', key).update(Buffer.from(text, 'utf8')).digest('hex');
        expect(contentHash(ring, text).hash).toBe(expected);
        expect(contentHashMatches(ring, text, { keyId: ring.currentKeyId, hash: expected })).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect(() => contentHash(ring, 'a\ud800')).toThrow(TypeError);
  });

  it('treats a malformed stored hash as a mismatch', () => {
    const ring = createKeyring({ current: KEY_ONE });
    expect(contentHashMatches(ring, CANONICAL, { keyId: ring.currentKeyId, hash: 'abc' })).toBe(false);
  });
});
