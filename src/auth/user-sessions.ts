// Sessions of people in PostgreSQL (docs/roles.md, "Sessions"). The cookie holds `jts_` + 256
// random bits; the row is keyed by its SHA-256, so a copy of the table signs no one in. A
// session ends after SESSION_IDLE_MINUTES without a request or SESSION_MAX_HOURS after sign-in,
// when its user is disabled, and when the admin token changes (admin_epoch).

import { createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';
import { findActiveUser, type UserPrincipal } from './people-sql.ts';

export const USER_SESSION_PREFIX = 'jts_';
const SHAPE = /^jts_[A-Za-z0-9_-]{43}$/;
/** last_seen_at is written at most once a minute: most requests of a busy session write nothing. */
const TOUCH_INTERVAL_MS = 60_000;

export interface SessionLimits {
  idleMinutes: number;
  maxHours: number;
}

export interface UserSession {
  publicId: string;
  user: UserPrincipal;
  createdAtMs: number;
  /** When the session ends unless used again. */
  expiresAtMs: number;
}

const hashOf = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** A fingerprint of the admin token (never the token): sessions made under another one are void. */
export function adminEpoch(adminToken: string): string {
  return Buffer.from(hkdfSync('sha256', Buffer.from(adminToken, 'utf8'), Buffer.alloc(0), 'jtrace user session epoch v1', 16)).toString('hex');
}

export function isUserSessionValue(value: string | undefined): value is string {
  return typeof value === 'string' && SHAPE.test(value);
}

export async function createUserSession(
  db: Queryable,
  input: { userId: string; adminToken: string; nowMs: number; client: string; userAgent: string },
): Promise<{ value: string; publicId: string }> {
  const value = USER_SESSION_PREFIX + randomBytes(32).toString('base64url');
  const publicId = randomUUID();
  const now = new Date(input.nowMs);
  await db.query(
    `INSERT INTO user_sessions (id_hash, public_id, user_id, admin_epoch, created_at, last_seen_at, client, user_agent)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7)`,
    [hashOf(value), publicId, input.userId, adminEpoch(input.adminToken), now, input.client, input.userAgent.slice(0, 200)],
  );
  return { value, publicId };
}

function expiry(createdAt: Date, lastSeenAt: Date, limits: SessionLimits): number {
  return Math.min(lastSeenAt.getTime() + limits.idleMinutes * 60_000, createdAt.getTime() + limits.maxHours * 3_600_000);
}

/** The live session a cookie value names, touched; null when unknown, expired, void or its user disabled. */
export async function readUserSession(
  db: Queryable,
  value: string,
  context: { adminToken: string; nowMs: number; limits: SessionLimits },
): Promise<UserSession | null> {
  const result = await db.query<{ public_id: string; user_id: string; admin_epoch: string; created_at: Date; last_seen_at: Date }>(
    'SELECT public_id, user_id, admin_epoch, created_at, last_seen_at FROM user_sessions WHERE id_hash = $1',
    [hashOf(value)],
  );
  const row = result.rows[0];
  if (row === undefined || row.admin_epoch !== adminEpoch(context.adminToken)) return null;
  if (expiry(row.created_at, row.last_seen_at, context.limits) <= context.nowMs) return null;
  // Read on every request: disabling a user ends their sessions on their next request.
  const user = await findActiveUser(db, row.user_id);
  if (user === null) return null;
  let lastSeen = row.last_seen_at;
  if (context.nowMs - row.last_seen_at.getTime() >= TOUCH_INTERVAL_MS) {
    lastSeen = new Date(context.nowMs);
    await db.query('UPDATE user_sessions SET last_seen_at = $2 WHERE id_hash = $1', [hashOf(value), lastSeen]);
  }
  // The expiry announced is the one the stored last use gives, the one the next request is
  // judged by: a request that wrote nothing does not push it (up to a minute early, never late).
  return { publicId: row.public_id, user, createdAtMs: row.created_at.getTime(), expiresAtMs: expiry(row.created_at, lastSeen, context.limits) };
}

export async function endUserSession(db: Queryable, value: string): Promise<void> {
  await db.query('DELETE FROM user_sessions WHERE id_hash = $1', [hashOf(value)]);
}

export interface SessionListItem {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  client: string;
  userAgent: string;
}

export async function listUserSessions(db: Queryable, userId: string): Promise<SessionListItem[]> {
  const result = await db.query<{ public_id: string; created_at: Date; last_seen_at: Date; client: string; user_agent: string }>(
    'SELECT public_id, created_at, last_seen_at, client, user_agent FROM user_sessions WHERE user_id = $1 ORDER BY created_at DESC, public_id',
    [userId],
  );
  return result.rows.map((r) => ({ id: r.public_id, createdAt: r.created_at, lastSeenAt: r.last_seen_at, client: r.client, userAgent: r.user_agent }));
}

export async function endUserSessionById(db: Queryable, userId: string, publicId: string): Promise<boolean> {
  const result = await db.query('DELETE FROM user_sessions WHERE user_id = $1 AND public_id = $2', [userId, publicId]);
  return (result.rowCount ?? 0) > 0;
}

/** Every session of a person (password reset, disabling). */
export async function endAllUserSessions(db: Queryable, userId: string): Promise<void> {
  await db.query('DELETE FROM user_sessions WHERE user_id = $1', [userId]);
}
