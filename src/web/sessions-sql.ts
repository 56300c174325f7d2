import type { Queryable } from '../db/pool.ts';
import type { Session } from './session-token.ts';

/** Ends a session before its expiry; expired revocations are dropped at the same time. */
export async function revokeSession(db: Queryable, session: Session, nowMs: number): Promise<void> {
  await db.query('DELETE FROM web_session_revocations WHERE expires_at <= $1', [new Date(nowMs)]);
  await db.query(
    'INSERT INTO web_session_revocations (session_id, expires_at) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING',
    [session.id, new Date(session.expiresAtMs)],
  );
}

export async function isSessionRevoked(db: Queryable, sessionId: string): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM web_session_revocations WHERE session_id = $1', [sessionId]);
  return (result.rowCount ?? 0) > 0;
}
