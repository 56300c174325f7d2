import type { Queryable } from '../db/pool.ts';

/** The three trails AUDIT_RETENTION_DAYS ages out, with the key each row is deleted by. */
const TRAILS = [
  { table: 'audit_log', key: '(project_id, id)' },
  { table: 'settings_changes', key: '(project_id, id)' },
  { table: 'account_audit_log', key: 'id' },
] as const;

export const AUDIT_TRAIL_TABLES = TRAILS.map((trail) => trail.table);

/**
 * Deletes at most `limit` rows of one trail created before the cut-off, oldest first (the
 * created_at index of migration 0014 finds them); returns how many went.
 */
export async function deleteOldTrailBatch(db: Queryable, table: (typeof AUDIT_TRAIL_TABLES)[number], cutoff: Date, limit: number): Promise<number> {
  const trail = TRAILS.find((t) => t.table === table)!;
  const result = await db.query(
    `DELETE FROM ${trail.table} WHERE ${trail.key} IN (
       SELECT ${trail.key.replace(/[()]/g, '')} FROM ${trail.table} WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
    [cutoff, limit],
  );
  return result.rowCount ?? 0;
}
