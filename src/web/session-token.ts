// The web interface's session cookie value: `<session id>.<expiry, seconds since the epoch>.<mac>`,
// the MAC an HMAC-SHA256 under a key derived from the admin token. Deriving the key from the
// token (rather than storing sessions) means that changing ADMIN_TOKEN ends every session.

import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';

/** Lifetime of a session, in seconds (12 hours): a working day, then sign in again. */
export const SESSION_LIFETIME_SECONDS = 43_200;

/** Longest cookie value looked at; a real one is about 100 characters. */
const MAX_VALUE_LENGTH = 256;
const KEY_INFO = 'jtrace web session v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Session {
  id: string;
  /** Milliseconds since the epoch. */
  expiresAtMs: number;
}

/** A separate key for sessions: the admin token itself is never the MAC key. */
export function deriveSessionKey(adminToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(adminToken, 'utf8'), Buffer.alloc(0), KEY_INFO, 32));
}

function mac(key: Buffer, id: string, expiresAtSeconds: number): Buffer {
  return createHmac('sha256', key).update(`${id}.${expiresAtSeconds}`).digest();
}

export function issueSession(key: Buffer, nowMs: number): { session: Session; value: string } {
  const id = randomUUID();
  const expiresAtSeconds = Math.floor(nowMs / 1000) + SESSION_LIFETIME_SECONDS;
  const value = `${id}.${expiresAtSeconds}.${mac(key, id, expiresAtSeconds).toString('base64url')}`;
  return { session: { id, expiresAtMs: expiresAtSeconds * 1000 }, value };
}

/** The session a cookie value carries, or null when it is malformed, forged or expired. */
export function verifySessionValue(key: Buffer, value: string | undefined, nowMs: number): Session | null {
  if (value === undefined || value.length > MAX_VALUE_LENGTH) return null;
  const parts = value.split('.');
  if (parts.length !== 3) return null;
  const [id, expiry, presented] = parts as [string, string, string];
  if (!UUID.test(id) || !/^\d{1,12}$/.test(expiry)) return null;
  const expiresAtSeconds = Number(expiry);
  const expected = mac(key, id, expiresAtSeconds);
  const given = Buffer.from(presented, 'base64url');
  // base64url decoding skips stray characters: compare the canonical text too.
  if (given.length !== expected.length || given.toString('base64url') !== presented) return null;
  if (!timingSafeEqual(given, expected)) return null;
  if (expiresAtSeconds * 1000 <= nowMs) return null;
  return { id, expiresAtMs: expiresAtSeconds * 1000 };
}
