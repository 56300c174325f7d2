import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasRepeatedStretch, REPEATED_STRETCH, weakAdminTokenReason, weakEncryptionKeyReason } from './secret-rules.ts';

describe('secret rules', () => {
  it('accept every form a generator gives (embedded mode, openssl rand)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 64 }), (bytes) => {
        const raw = Buffer.from(bytes);
        for (const key of [raw.toString('hex'), raw.toString('base64'), raw.toString('base64url')]) {
          expect(weakEncryptionKeyReason(key)).toBeNull();
        }
        expect(weakAdminTokenReason(raw.toString('base64url'))).toBeNull();
        expect(weakAdminTokenReason(raw.subarray(0, 16).toString('hex'))).toBeNull();
      }),
      { numRuns: 2000 },
    );
    expect(weakEncryptionKeyReason(randomBytes(32).toString('base64url'))).toBeNull();
  });

  it('refuse any piece of a random value written twice or more', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 5, maxLength: 24 }), fc.integer({ min: 2, max: 6 }), (bytes, times) => {
        const piece = Buffer.from(bytes).toString('hex');
        const secret = piece.repeat(times);
        expect(hasRepeatedStretch(secret)).toBe(true);
        if (secret.length >= 64) expect(weakEncryptionKeyReason(secret)).toMatch(/too little entropy|256 bits/);
        if (secret.length >= 32) expect(weakAdminTokenReason(secret)).toMatch(/too little entropy/);
      }),
    );
  });

  it('count overlapping repeats: a run of one character longer than the stretch repeats', () => {
    expect(hasRepeatedStretch('a'.repeat(REPEATED_STRETCH))).toBe(false);
    expect(hasRepeatedStretch('a'.repeat(REPEATED_STRETCH + 1))).toBe(true);
  });
});
