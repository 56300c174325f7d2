import { describe, expect, it } from 'vitest';
import { SESSION_LIFETIME_SECONDS, deriveSessionKey, issueSession, verifySessionValue } from './session-token.ts';

const TOKEN = 'an-admin-token-of-at-least-32-characters';
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('session cookie value', () => {
  const key = deriveSessionKey(TOKEN);

  it('round-trips and expires after 12 hours', () => {
    const { session, value } = issueSession(key, NOW);
    expect(session.expiresAtMs).toBe(NOW + SESSION_LIFETIME_SECONDS * 1000);
    expect(verifySessionValue(key, value, NOW)).toEqual(session);
    expect(verifySessionValue(key, value, session.expiresAtMs - 1)).toEqual(session);
    expect(verifySessionValue(key, value, session.expiresAtMs)).toBeNull();
  });

  it('never holds the admin token, and the key is not the token', () => {
    const { value } = issueSession(key, NOW);
    expect(value).not.toContain(TOKEN);
    expect(key.equals(Buffer.from(TOKEN))).toBe(false);
  });

  it('refuses a value signed under another admin token', () => {
    const { value } = issueSession(deriveSessionKey(`${TOKEN}-rotated`), NOW);
    expect(verifySessionValue(key, value, NOW)).toBeNull();
  });

  it('refuses tampered values', () => {
    const { value } = issueSession(key, NOW);
    const [id, expiry, mac] = value.split('.') as [string, string, string];
    const later = String(Number(expiry) + 3600);
    const flipped = `${mac.slice(0, -2)}${mac.at(-2) === 'A' ? 'B' : 'A'}${mac.at(-1)}`;
    for (const bad of [
      `${id}.${later}.${mac}`,
      `${id}.${expiry}.${flipped}`,
      `${id.replace(/^./, id[0] === 'a' ? 'b' : 'a')}.${expiry}.${mac}`,
      `${id}.${expiry}.${mac}=`,
      `${id}.${expiry}.${mac}.x`,
      `${id}.${expiry}`,
      '',
      'x'.repeat(300),
    ]) {
      expect(verifySessionValue(key, bad, NOW)).toBeNull();
    }
    expect(verifySessionValue(key, undefined, NOW)).toBeNull();
  });
});
