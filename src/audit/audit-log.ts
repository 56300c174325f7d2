import type { Queryable } from '../db/pool.ts';

export type AuditAction =
  | 'journey.deleted'
  | 'erasure.completed'
  | 'range.deleted'
  | 'replay_destination.created'
  | 'replay_destination.deleted'
  | 'api_key.created'
  | 'api_key.revoked';

/**
 * Writes one audit row. Callers pass the transaction of the action itself, so the row and
 * the change commit or roll back together. Details never hold secrets, identifiers or URLs.
 */
export async function writeAudit(
  db: Queryable,
  projectId: string,
  action: AuditAction,
  details: Record<string, unknown>,
): Promise<number> {
  const result = await db.query<{ id: number }>(
    'INSERT INTO audit_log (project_id, action, details) VALUES ($1, $2, $3) RETURNING id',
    [projectId, action, JSON.stringify(details)],
  );
  return result.rows[0]!.id;
}

/** Batched actions (erasure, range deletion) update their row with every batch. */
export async function updateAudit(
  db: Queryable,
  projectId: string,
  id: number,
  details: Record<string, unknown>,
): Promise<void> {
  await db.query('UPDATE audit_log SET details = $3, updated_at = now() WHERE project_id = $1 AND id = $2', [
    projectId,
    id,
    JSON.stringify(details),
  ]);
}

export interface AuditRow {
  id: number;
  action: AuditAction;
  details: Record<string, unknown>;
  createdAt: Date;
}

export async function listAudit(db: Queryable, projectId: string): Promise<AuditRow[]> {
  const result = await db.query<{ id: number; action: AuditAction; details: Record<string, unknown>; created_at: Date }>(
    'SELECT id, action, details, created_at FROM audit_log WHERE project_id = $1 ORDER BY id',
    [projectId],
  );
  return result.rows.map((row) => ({ id: row.id, action: row.action, details: row.details, createdAt: row.created_at }));
}
