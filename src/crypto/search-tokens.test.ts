import { describe, expect, it } from 'vitest';
import { createKeyring } from './keyring.ts';
import { searchToken, searchTokenForWrite, searchTokensForLookup } from './search-tokens.ts';
import { contentHash } from './content-hash.ts';
import { hashApiKey } from './api-keys.ts';

const KEY_ONE = 'jtrace test key one, not a real key';
const KEY_TWO = 'jtrace test key two, not a real key';

describe('search tokens', () => {
  it('are deterministic per key and value, hex HMAC-SHA256', () => {
    const a = createKeyring({ current: KEY_ONE });
    const b = createKeyring({ current: KEY_ONE });
    expect(searchToken(a, 'greenhouse:4567', 'current')).toBe(searchToken(b, 'greenhouse:4567', 'current'));
    expect(searchToken(a, 'greenhouse:4567', 'current')).toMatch(/^[0-9a-f]{64}$/);
    expect(searchToken(a, 'greenhouse:4567', 'current')).not.toBe(searchToken(a, 'greenhouse:4568', 'current'));
  });

  it('differ between keys; lookup lists every configured key, current first', () => {
    const rotated = createKeyring({ current: KEY_ONE, previous: KEY_TWO });
    const lookup = searchTokensForLookup(rotated, 'v');
    expect(lookup.map((t) => t.keyId)).toEqual([rotated.currentKeyId, rotated.previousKeyId]);
    expect(lookup[0]!.token).not.toBe(lookup[1]!.token);
    // The previous token is what the old deployment wrote.
    expect(lookup[1]!.token).toBe(searchToken(createKeyring({ current: KEY_TWO }), 'v', 'current'));
    expect(searchTokenForWrite(rotated, 'v')).toEqual(lookup[0]);
  });

  it('without rotation, lookup has one token and asking for the previous key throws', () => {
    const ring = createKeyring({ current: KEY_ONE });
    expect(searchTokensForLookup(ring, 'v')).toHaveLength(1);
    expect(() => searchToken(ring, 'v', 'previous')).toThrow(/previous/);
  });

  it('uses its own subkey: differs from the content hash and api-key hash of the same input', () => {
    const ring = createKeyring({ current: KEY_ONE });
    const token = searchToken(ring, 'same input', 'current');
    expect(token).not.toBe(contentHash(ring, 'same input').hash);
    expect(token).not.toBe(hashApiKey(ring, 'same input', 'current').hash);
  });

  it('handles U+0000 (entity ids may hold it) and refuses unpaired surrogates', () => {
    const ring = createKeyring({ current: KEY_ONE });
    expect(searchToken(ring, 'a\u0000', 'current')).not.toBe(searchToken(ring, 'a', 'current'));
    expect(() => searchToken(ring, '\uDC00', 'current')).toThrow(TypeError);
  });
});
