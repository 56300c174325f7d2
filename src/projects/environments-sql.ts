import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';
import { CAPTURE_MODE_VALUES } from './settings-input.ts';

export const CAPTURE_MODES = CAPTURE_MODE_VALUES;
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

/** A project's environments by name (the Settings page lists them). */
export async function listEnvironments(db: Queryable, projectId: string): Promise<EnvironmentRow[]> {
  const result = await db.query<EnvironmentRow>(`SELECT ${COLUMNS} FROM environments WHERE project_id = $1 ORDER BY name COLLATE "C"`, [projectId]);
  return result.rows;
}

/** The row locked for a change in the caller's transaction, so the history's before is exact. */
export async function lockEnvironment(db: Queryable, projectId: string, name: string): Promise<EnvironmentRow | null> {
  const result = await db.query<EnvironmentRow>(
    `SELECT ${COLUMNS} FROM environments WHERE project_id = $1 AND name = $2 FOR UPDATE`,
    [projectId, name],
  );
  return result.rows[0] ?? null;
}

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

/** A new environment in redacted-payload with no rules; null when the name is taken. */
export async function insertEnvironment(db: Queryable, projectId: string, name: string, retentionDays: number): Promise<EnvironmentRow | null> {
  const result = await db.query<EnvironmentRow>(
    `INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, name) DO NOTHING RETURNING ${COLUMNS}`,
    [projectId, randomUUID(), name, retentionDays],
  );
  return result.rows[0] ?? null;
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

export interface RecentEvent {
  id: string;
  journeyId: string;
  service: string;
  name: string;
  eventTimestamp: Date;
}

/**
 * Events of the environment's latest journeys, for the capture preview to pick one from: the
 * journeys come from their per-environment index by last event, then each journey's last
 * events from the timeline index, so no scan of the environment's events is needed.
 */
export async function recentEvents(db: Queryable, projectId: string, environmentId: string, limit: number): Promise<RecentEvent[]> {
  const result = await db.query<RecentEvent>(
    `SELECT ev.id, ev.journey_id AS "journeyId", ev.service, ev.name, ev.event_timestamp AS "eventTimestamp"
       FROM (SELECT id FROM journeys WHERE project_id = $1 AND environment_id = $2
              ORDER BY last_event_at DESC, id COLLATE "C" DESC LIMIT $3) j
       CROSS JOIN LATERAL (
         SELECT id, journey_id, service, name, event_timestamp, received_at FROM events
          WHERE project_id = $1 AND journey_id = j.id
          ORDER BY event_timestamp DESC, received_at DESC, id COLLATE "C" DESC LIMIT $3) ev
      ORDER BY ev.event_timestamp DESC, ev.received_at DESC LIMIT $3`,
    [projectId, environmentId, limit],
  );
  return result.rows;
}
