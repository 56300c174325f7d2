// SQL of the rows that only ever expire (docs/retention-and-deletion.md, "Expired rows"). The
// tables belong to sign-in, sessions, invitations and alerts; only their removal by age lives
// here, beside the rest of the retention sweep. Each statement deletes at most `limit` rows,
// oldest first, and answers how many went.

import type { Queryable } from '../db/pool.ts';

/**
 * Throttle rows whose window started before `windowCutoff` and whose lock, if any, has run out by
 * `now`: such a row counts nothing any more (the next refusal would start it again from one).
 */
export async function deleteSpentThrottleBatch(db: Queryable, windowCutoff: Date, now: Date, limit: number): Promise<number> {
  const result = await db.query(
    `DELETE FROM sign_in_throttle WHERE (scope, key) IN (
       SELECT scope, key FROM sign_in_throttle
        WHERE window_started_at < $1 AND (locked_until IS NULL OR locked_until <= $2)
        ORDER BY window_started_at LIMIT $3)`,
    [windowCutoff, now, limit],
  );
  return result.rowCount ?? 0;
}

/**
 * Sessions idle since before `idleCutoff` or signed in before `maxCutoff`: both cut-offs lie past
 * the session limits, so every one of them had already ended (a read never touches an ended one).
 */
export async function deleteEndedSessionsBatch(db: Queryable, idleCutoff: Date, maxCutoff: Date, limit: number): Promise<number> {
  const result = await db.query(
    `DELETE FROM user_sessions WHERE id_hash IN (
       SELECT id_hash FROM user_sessions WHERE last_seen_at < $1 OR created_at < $2
        ORDER BY last_seen_at LIMIT $3)`,
    [idleCutoff, maxCutoff, limit],
  );
  return result.rowCount ?? 0;
}

/** Invitation and reset links used, or expired, before the cut-off. */
export async function deleteSpentLinksBatch(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const result = await db.query(
    `DELETE FROM password_links WHERE token_hash IN (
       SELECT token_hash FROM password_links WHERE used_at < $1 OR expires_at < $1
        ORDER BY created_at LIMIT $2)`,
    [cutoff, limit],
  );
  return result.rowCount ?? 0;
}

/**
 * Notifications sent or given up that were queued before the cut-off, with every attempt of
 * their delivery log, in one statement; pending ones stay whatever their age (they are the
 * queue). Their windows lie far in the past, so no evaluation queues them again.
 */
export async function deleteFinishedNotificationsBatch(
  db: Queryable,
  cutoff: Date,
  limit: number,
): Promise<{ notifications: number; deliveries: number }> {
  const result = await db.query<{ notifications: string; deliveries: string }>(
    `WITH batch AS (
       SELECT project_id, id FROM alert_outbox
        WHERE status IN ('sent', 'failed') AND created_at < $1
        ORDER BY created_at LIMIT $2 FOR UPDATE),
     log AS (
       DELETE FROM alert_deliveries d USING batch b WHERE d.project_id = b.project_id AND d.outbox_id = b.id RETURNING 1),
     gone AS (
       DELETE FROM alert_outbox o USING batch b WHERE o.project_id = b.project_id AND o.id = b.id RETURNING 1)
     SELECT (SELECT count(*) FROM gone) AS notifications, (SELECT count(*) FROM log) AS deliveries`,
    [cutoff, limit],
  );
  const row = result.rows[0]!;
  return { notifications: Number(row.notifications), deliveries: Number(row.deliveries) };
}
