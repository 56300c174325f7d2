import type { Queryable } from '../db/pool.ts';
import type { AuditActor } from './audit-log.ts';

/**
 * The history of settings changes, beside the audit log. The spec fixes which actions write
 * audit rows (and that environment settings write none), so edits of settings are recorded
 * here instead, from every route and CLI command that makes them.
 */
export type SettingsChangeAction =
  | 'project.created'
  | 'project.renamed'
  | 'environment.created'
  | 'environment.updated'
  | 'replay_destination.updated'
  | 'replay_destination.disabled'
  | 'replay_destination.enabled'
  | 'member.role_changed';

/** Setting values only: never a secret, a header value, an entity id or an alias. */
export type SettingsSnapshot = Record<string, string | number | boolean | null | string[]>;

export interface SettingsChange {
  action: SettingsChangeAction;
  /** What changed, readable on its own: an environment's name, a destination's id, a project's slug. */
  subject: string;
  before: SettingsSnapshot | null;
  after: SettingsSnapshot | null;
}

/** Only the keys whose values differ, so a row shows what the edit did. */
export function changedSettings(
  before: SettingsSnapshot,
  after: SettingsSnapshot,
): { before: SettingsSnapshot; after: SettingsSnapshot } | null {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const differing = keys.filter((key) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null));
  if (differing.length === 0) return null;
  return {
    before: Object.fromEntries(differing.map((key) => [key, before[key] ?? null])),
    after: Object.fromEntries(differing.map((key) => [key, after[key] ?? null])),
  };
}

/** Writes one history row in the caller's transaction, so it commits or rolls back with the change. */
export async function recordSettingsChange(
  db: Queryable,
  projectId: string,
  change: SettingsChange,
  actor: AuditActor,
): Promise<void> {
  await db.query(
    `INSERT INTO settings_changes (project_id, action, subject, before, after, actor_kind, actor_user_id, actor_email,
       actor_key_prefix, client_address)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      projectId,
      change.action,
      change.subject,
      change.before === null ? null : JSON.stringify(change.before),
      change.after === null ? null : JSON.stringify(change.after),
      actor.kind,
      actor.kind === 'user' ? actor.userId : null,
      actor.kind === 'user' ? actor.email : null,
      actor.kind === 'api-key' ? actor.keyPrefix : null,
      actor.clientAddress ?? null,
    ],
  );
}

export interface SettingsChangeRow extends SettingsChange {
  id: number;
  actor: { kind: string; userId: string | null; email: string | null; keyPrefix: string | null; clientAddress: string | null };
  createdAt: Date;
}

interface SettingsChangeRecord {
  id: string; action: SettingsChangeAction; subject: string; before: SettingsSnapshot | null; after: SettingsSnapshot | null;
  actor_kind: string; actor_user_id: string | null; actor_email: string | null; actor_key_prefix: string | null;
  client_address: string | null; created_at: Date;
}

const SETTINGS_CHANGE_COLUMNS =
  'id, action, subject, before, after, actor_kind, actor_user_id, actor_email, actor_key_prefix, client_address, created_at';

function changeRow(row: SettingsChangeRecord): SettingsChangeRow {
  return {
    id: Number(row.id),
    action: row.action,
    subject: row.subject,
    before: row.before,
    after: row.after,
    actor: { kind: row.actor_kind, userId: row.actor_user_id, email: row.actor_email, keyPrefix: row.actor_key_prefix, clientAddress: row.client_address },
    createdAt: row.created_at,
  };
}

/** A project's history, newest first (tests and the CLI read it; the audit-log route pages it). */
export async function listSettingsChanges(db: Queryable, projectId: string): Promise<SettingsChangeRow[]> {
  const result = await db.query<SettingsChangeRecord>(
    `SELECT ${SETTINGS_CHANGE_COLUMNS} FROM settings_changes WHERE project_id = $1 ORDER BY created_at DESC, id DESC`,
    [projectId],
  );
  return result.rows.map(changeRow);
}

/** The latest changes of one subject (an environment's page shows its own), newest first. */
export async function listSubjectChanges(
  db: Queryable,
  projectId: string,
  actions: readonly SettingsChangeAction[],
  subject: string,
  limit: number,
): Promise<SettingsChangeRow[]> {
  // The recent-changes index narrows to the project; a project's settings change rarely.
  const result = await db.query<SettingsChangeRecord>(
    `SELECT ${SETTINGS_CHANGE_COLUMNS} FROM settings_changes WHERE project_id = $1 AND action = ANY($2) AND subject = $3
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [projectId, actions, subject, limit],
  );
  return result.rows.map(changeRow);
}
