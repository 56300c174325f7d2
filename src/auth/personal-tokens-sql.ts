import type { Queryable } from '../db/pool.ts';

export interface PersonalTokenRecord {
  id: string;
  userId: string;
  prefix: string;
  hash: string;
  hashKeyId: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export async function findPersonalTokenByPrefix(db: Queryable, prefix: string): Promise<PersonalTokenRecord | null> {
  const result = await db.query<{ id: string; user_id: string; prefix: string; hash: string; hash_key_id: string; expires_at: Date | null; revoked_at: Date | null }>(
    'SELECT id, user_id, prefix, hash, hash_key_id, expires_at, revoked_at FROM personal_tokens WHERE prefix = $1',
    [prefix],
  );
  const r = result.rows[0];
  return r === undefined
    ? null
    : { id: r.id, userId: r.user_id, prefix: r.prefix, hash: r.hash, hashKeyId: r.hash_key_id, expiresAt: r.expires_at, revokedAt: r.revoked_at };
}

/** Last use kept to the minute. */
export async function touchPersonalToken(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE personal_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
    [id, now],
  );
}
