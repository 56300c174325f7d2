import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';

export const CAPTURE_MODES = ['metadata-only', 'allowlisted-fields', 'redacted-payload', 'full-payload'] as const;
export type CaptureMode = (typeof CAPTURE_MODES)[number];

export interface EnvironmentRow {
  projectId: string;
  id: string;
  name: string;
  captureMode: CaptureMode;
  retentionDays: number;
  redactionPaths: string[];
  captureAllowlist: string[];
}

const COLUMNS = `project_id AS "projectId", id, name, capture_mode AS "captureMode", retention_days AS "retentionDays",
  redaction_paths AS "redactionPaths", capture_allowlist AS "captureAllowlist"`;

export async function findEnvironment(db: Queryable, projectId: string, name: string): Promise<EnvironmentRow | null> {
  const result = await db.query<EnvironmentRow>(
    `SELECT ${COLUMNS} FROM environments WHERE project_id = $1 AND name = $2`,
    [projectId, name],
  );
  return result.rows[0] ?? null;
}

/** New environments start in redacted-payload with no rules (decisions: environment:set). */
export async function ensureEnvironment(
  db: Queryable,
  projectId: string,
  name: string,
  retentionDays: number,
): Promise<EnvironmentRow> {
  await db.query(
    `INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, name) DO NOTHING`,
    [projectId, randomUUID(), name, retentionDays],
  );
  return (await findEnvironment(db, projectId, name))!;
}

export interface EnvironmentChanges {
  captureMode?: CaptureMode;
  retentionDays?: number;
  redactionPaths?: string[];
  captureAllowlist?: string[];
}

/** Replaces only the settings that are named; writes no audit row (spec section 6). */
export async function updateEnvironment(
  db: Queryable,
  projectId: string,
  name: string,
  changes: EnvironmentChanges,
): Promise<EnvironmentRow | null> {
  const result = await db.query<EnvironmentRow>(
    `UPDATE environments SET
       capture_mode = COALESCE($3, capture_mode),
       retention_days = COALESCE($4, retention_days),
       redaction_paths = COALESCE($5, redaction_paths),
       capture_allowlist = COALESCE($6, capture_allowlist)
     WHERE project_id = $1 AND name = $2
     RETURNING ${COLUMNS}`,
    [
      projectId,
      name,
      changes.captureMode ?? null,
      changes.retentionDays ?? null,
      changes.redactionPaths ?? null,
      changes.captureAllowlist ?? null,
    ],
  );
  return result.rows[0] ?? null;
}
