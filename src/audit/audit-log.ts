import type { Queryable } from '../db/pool.ts';

export type AuditAction =
  | 'journey.deleted'
  | 'erasure.completed'
  | 'range.deleted'
  | 'replay_destination.created'
  | 'replay_destination.deleted'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'member.granted'
  | 'member.revoked'
  | 'problem.status_changed'
  | 'problem_replay.started'
  | 'problem_replay.cancelled';

/** Actions on accounts: they belong to no project and have their own trail. */
export type AccountAuditAction =
  | 'user.created'
  | 'user.disabled'
  | 'user.enabled'
  | 'token.created'
  | 'token.revoked'
  | 'session.signed_in'
  | 'session.sign_in_refused'
  | 'password.reset'
  | 'invitation.reissued';

/**
 * Who did it (a person with their id and e-mail at that time, the admin token, an API key by
 * prefix, or the operator CLI) and from which client address (null for the CLI).
 */
export type AuditActor = (
  | { kind: 'user'; userId: string; email: string }
  | { kind: 'admin-token' }
  | { kind: 'api-key'; keyPrefix: string }
  | { kind: 'cli' }
) & { clientAddress?: string | null };

export const CLI_ACTOR: AuditActor = { kind: 'cli', clientAddress: null };

function actorColumns(actor: AuditActor | { kind: 'none'; clientAddress?: string | null }): unknown[] {
  return [
    actor.kind,
    actor.kind === 'user' ? actor.userId : null,
    actor.kind === 'user' ? actor.email : null,
    actor.kind === 'api-key' ? actor.keyPrefix : null,
    actor.clientAddress ?? null,
  ];
}

/**
 * Writes one audit row. Callers pass the transaction of the action itself, so the row and
 * the change commit or roll back together. Details never hold secrets, identifiers or URLs.
 */
export async function writeAudit(
  db: Queryable,
  projectId: string,
  action: AuditAction,
  details: Record<string, unknown>,
  actor: AuditActor,
): Promise<number> {
  const result = await db.query<{ id: number }>(
    `INSERT INTO audit_log (project_id, action, details, actor_kind, actor_user_id, actor_email, actor_key_prefix, client_address)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [projectId, action, JSON.stringify(details), ...actorColumns(actor)],
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

/** One row of the accounts' trail; `none` for a refused sign-in, which has no actor yet. */
export async function writeAccountAudit(
  db: Queryable,
  action: AccountAuditAction,
  subjectUserId: string | null,
  details: Record<string, unknown>,
  actor: AuditActor | { kind: 'none'; clientAddress?: string | null },
): Promise<void> {
  await db.query(
    `INSERT INTO account_audit_log (action, subject_user_id, details, actor_kind, actor_user_id, actor_email, actor_key_prefix, client_address)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [action, subjectUserId, JSON.stringify(details), ...actorColumns(actor)],
  );
}

export interface AuditActorRow {
  kind: string | null;
  userId: string | null;
  email: string | null;
  keyPrefix: string | null;
  clientAddress: string | null;
}

/** The actor columns of a project's audit rows, in order (tests and the CLI read them). */
export async function listAuditActors(db: Queryable, projectId: string): Promise<(AuditActorRow & { action: string })[]> {
  const result = await db.query<{ action: string; actor_kind: string | null; actor_user_id: string | null; actor_email: string | null; actor_key_prefix: string | null; client_address: string | null }>(
    'SELECT action, actor_kind, actor_user_id, actor_email, actor_key_prefix, client_address FROM audit_log WHERE project_id = $1 ORDER BY id',
    [projectId],
  );
  return result.rows.map((r) => ({ action: r.action, kind: r.actor_kind, userId: r.actor_user_id, email: r.actor_email, keyPrefix: r.actor_key_prefix, clientAddress: r.client_address }));
}
