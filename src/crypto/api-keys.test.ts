import { describe, expect, it } from 'vitest';
import { createKeyring } from './keyring.ts';
import { API_KEY_RANDOM_BYTES, generateApiKey, hashApiKey, parseApiKeyShape, verifyApiKey } from './api-keys.ts';

const KEY_ONE = 'jtrace test key one, not a real key';
const KEY_TWO = 'jtrace test key two, not a real key';

describe('api keys', () => {
  it('have the shape jtk_ + 32 base64url characters carrying 192 random bits', () => {
    const { secret, prefix } = generateApiKey();
    expect(secret).toMatch(/^jtk_[A-Za-z0-9_-]{32}$/);
    expect(Buffer.from(secret.slice(4), 'base64url')).toHaveLength(24);
    expect(API_KEY_RANDOM_BYTES * 8).toBe(192);
    expect(prefix).toBe(secret.slice(0, 12));
    expect(parseApiKeyShape(secret)).toBe(prefix);
  });

  it('are unique and use the whole alphabet (random, not a counter)', () => {
    const secrets = new Set<string>();
    const chars = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const { secret } = generateApiKey();
      secrets.add(secret);
      for (const c of secret.slice(4)) chars.add(c);
    }
    expect(secrets.size).toBe(500);
    expect(chars.size).toBe(64);
  });

  it('parseApiKeyShape refuses anything else', () => {
    const good = generateApiKey().secret;
    for (const bad of ['', 'jtk_', good + 'A', good.slice(0, -1), 'JTK_' + good.slice(4), good.slice(0, -1) + '=', good.slice(0, -1) + '+', ' ' + good, 'a'.repeat(36)]) {
      expect(parseApiKeyShape(bad)).toBeNull();
    }
  });

  it('hash and verify under the current key', () => {
    const ring = createKeyring({ current: KEY_ONE });
    const { secret } = generateApiKey();
    const stored = hashApiKey(ring, secret, 'current');
    expect(stored.keyId).toBe(ring.currentKeyId);
    expect(stored.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.hash).not.toContain(secret.slice(4));
    expect(verifyApiKey(ring, secret, stored)).toBe('current');
    expect(verifyApiKey(ring, generateApiKey().secret, stored)).toBe(false);
  });

  it("verify says 'previous' for a hash under the outgoing key, so the caller re-hashes it", () => {
    const { secret } = generateApiKey();
    const stored = hashApiKey(createKeyring({ current: KEY_TWO }), secret, 'current');
    const rotated = createKeyring({ current: KEY_ONE, previous: KEY_TWO });
    expect(stored).toEqual(hashApiKey(rotated, secret, 'previous'));
    expect(verifyApiKey(rotated, secret, stored)).toBe('previous');
    const moved = hashApiKey(rotated, secret, 'current');
    expect(verifyApiKey(rotated, secret, moved)).toBe('current');
  });

  it('verify is false when the key named is not configured, or the stored hash is malformed', () => {
    const { secret } = generateApiKey();
    const stored = hashApiKey(createKeyring({ current: KEY_TWO }), secret, 'current');
    const ring = createKeyring({ current: KEY_ONE });
    expect(verifyApiKey(ring, secret, stored)).toBe(false);
    expect(verifyApiKey(ring, secret, { keyId: ring.currentKeyId, hash: 'zz' })).toBe(false);
    expect(verifyApiKey(ring, secret, { keyId: ring.currentKeyId, hash: '' })).toBe(false);
  });
});
