import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newAlertSecret, signNotification, verifyNotification } from './signing.ts';

describe('alert signatures', () => {
  it('verify the exact body and timestamp they were made for, and nothing else', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.integer({ min: 0, max: 2 ** 31 }), (body, other, ts) => {
        const secret = newAlertSecret();
        const header = signNotification(secret, ts, body);
        expect(verifyNotification(secret, header, body)).toBe(true);
        expect(verifyNotification(secret, header, body + other)).toBe(false);
        expect(verifyNotification(newAlertSecret(), header, body)).toBe(false);
        expect(verifyNotification(secret, header.replace(`t=${ts}`, `t=${ts + 1}`), body)).toBe(false);
      }),
    );
  });

  it('match an HMAC-SHA256 computed independently', () => {
    // openssl: printf '1.body' | openssl dgst -sha256 -hmac key
    expect(signNotification('key', 1, 'body')).toBe('t=1,v1=91b5374b153842ad05b2c4eab9349b8321b14703165bd3fb8b034dfb8be98ae5');
  });
});
