import type { Queryable } from '../db/pool.ts';

export interface DestinationRow {
  id: string;
  name: string;
  base_url: string;
  environment_type: string;
  headers_encrypted: string;
  header_names: string[];
  disabled: boolean;
  created_at: Date;
  /** Replay runs sent to it: what a delete would remove (the interface's confirmation says it). */
  run_count: number;
}

const BASE_COLUMNS = 'id, name, base_url, environment_type, headers_encrypted, header_names, disabled, created_at';
// One index probe per destination (replay_runs_destination); lists hold a project's few destinations.
const COLUMNS = `${BASE_COLUMNS}, (SELECT count(*)::int FROM replay_runs r
  WHERE r.project_id = replay_destinations.project_id AND r.destination_id = replay_destinations.id) AS run_count`;

export async function insertDestination(
  db: Queryable,
  projectId: string,
  row: Omit<DestinationRow, 'disabled' | 'created_at' | 'run_count'>,
): Promise<DestinationRow> {
  const result = await db.query<DestinationRow>(
    `INSERT INTO replay_destinations (project_id, id, name, base_url, environment_type, headers_encrypted, header_names)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${BASE_COLUMNS}, 0 AS run_count`,
    [projectId, row.id, row.name, row.base_url, row.environment_type, row.headers_encrypted, row.header_names],
  );
  return result.rows[0]!;
}

/** Newest first; id breaks ties so the order is stable. */
export async function listDestinationRows(db: Queryable, projectId: string): Promise<DestinationRow[]> {
  const result = await db.query<DestinationRow>(
    `SELECT ${COLUMNS} FROM replay_destinations WHERE project_id = $1 ORDER BY created_at DESC, id DESC`,
    [projectId],
  );
  return result.rows;
}

/** `lock` takes the row lock that a concurrent replay's foreign-key check waits on. */
export async function findDestinationRow(
  db: Queryable,
  projectId: string,
  id: string,
  lock = false,
): Promise<DestinationRow | null> {
  const result = await db.query<DestinationRow>(
    `SELECT ${COLUMNS} FROM replay_destinations WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [projectId, id],
  );
  return result.rows[0] ?? null;
}

export async function deleteRunsOfDestination(db: Queryable, projectId: string, id: string): Promise<number> {
  const result = await db.query('DELETE FROM replay_runs WHERE project_id = $1 AND destination_id = $2', [projectId, id]);
  return result.rowCount ?? 0;
}

export async function deleteDestinationRow(db: Queryable, projectId: string, id: string): Promise<void> {
  await db.query('DELETE FROM replay_destinations WHERE project_id = $1 AND id = $2', [projectId, id]);
}

export async function setDestinationDisabledRow(
  db: Queryable,
  projectId: string,
  id: string,
  disabled: boolean,
): Promise<DestinationRow | null> {
  const result = await db.query<DestinationRow>(
    `UPDATE replay_destinations SET disabled = $3 WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [projectId, id, disabled],
  );
  return result.rows[0] ?? null;
}

/** The edited fields of a destination (PATCH): every column but the environment type. */
export async function updateDestinationRow(
  db: Queryable,
  projectId: string,
  id: string,
  row: Pick<DestinationRow, 'name' | 'base_url' | 'headers_encrypted' | 'header_names' | 'disabled'>,
): Promise<DestinationRow> {
  const result = await db.query<DestinationRow>(
    `UPDATE replay_destinations SET name = $3, base_url = $4, headers_encrypted = $5, header_names = $6, disabled = $7
      WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [projectId, id, row.name, row.base_url, row.headers_encrypted, row.header_names, row.disabled],
  );
  return result.rows[0]!;
}
