import type { Queryable } from '../db/pool.ts';
import { formatNullableTimestamp, formatTimestamp } from '../protocol/timestamps.ts';

export type RunStatus = 'completed' | 'failed' | 'blocked';
export type ReplayMethod = 'POST' | 'PUT' | 'PATCH';

export interface ReplayableEvent {
  /** The recorded input as jsonb text: sent byte for byte, so no number is re-rounded by JSON.parse. */
  inputText: string | null;
  output: unknown;
}

export async function findReplayableEvent(db: Queryable, projectId: string, eventId: string): Promise<ReplayableEvent | null> {
  const result = await db.query<{ input_text: string | null; output_payload: unknown }>(
    // event_ids names the event's day (migration 0017): one partition is probed, not all.
    `SELECT input_payload::text AS input_text, output_payload FROM events WHERE project_id = $1 AND id = $2
        AND received_at = (SELECT i.received_at FROM event_ids i WHERE i.project_id = $1 AND i.id = $2)`,
    [projectId, eventId],
  );
  const row = result.rows[0];
  return row ? { inputText: row.input_text, output: row.output_payload } : null;
}

export interface NewRun {
  id: string;
  eventId: string;
  destinationId: string;
  method: ReplayMethod;
  path: string;
  requestPayloadText: string;
  requestHeaders: Record<string, string>;
  status: RunStatus;
  responseStatus: number | null;
  responsePayload: unknown;
  durationMs: number | null;
  error: string | null;
  comparison: unknown[] | null;
  createdAt: Date;
  completedAt: Date;
}

interface RunRow {
  id: string;
  event_id: string;
  destination_id: string;
  method: ReplayMethod;
  path: string;
  request_payload: unknown;
  request_headers: Record<string, string>;
  status: RunStatus;
  response_status: number | null;
  response_payload: unknown;
  duration_ms: number | null;
  error: string | null;
  comparison: unknown[] | null;
  created_at: Date;
  completed_at: Date | null;
}

const COLUMNS = `id, event_id, destination_id, method, path, request_payload, request_headers, status, response_status,
  response_payload, duration_ms, error, comparison, created_at, completed_at`;

/** The run fields of interface-spec section 2. */
export function runView(row: RunRow) {
  return {
    id: row.id,
    eventId: row.event_id,
    destinationId: row.destination_id,
    method: row.method,
    path: row.path,
    requestPayload: row.request_payload,
    requestHeaders: row.request_headers,
    status: row.status,
    responseStatus: row.response_status,
    responsePayload: row.response_payload,
    durationMs: row.duration_ms,
    error: row.error,
    createdAt: formatTimestamp(row.created_at.getTime()),
    completedAt: formatNullableTimestamp(row.completed_at),
    comparison: row.comparison,
  };
}

export type ReplayRun = ReturnType<typeof runView>;

/** JSON text for a jsonb parameter; SQL NULL for null (a JSON null body reads as null either way). */
const jsonb = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export async function insertRun(db: Queryable, projectId: string, run: NewRun): Promise<ReplayRun> {
  const result = await db.query<RunRow>(
    `INSERT INTO replay_runs (project_id, id, event_id, destination_id, method, path, request_payload, request_headers,
                              status, response_status, response_payload, duration_ms, error, comparison, created_at, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11::jsonb, $12, $13, $14::jsonb, $15, $16)
     RETURNING ${COLUMNS}`,
    [
      projectId,
      run.id,
      run.eventId,
      run.destinationId,
      run.method,
      run.path,
      run.requestPayloadText,
      JSON.stringify(run.requestHeaders),
      run.status,
      run.responseStatus,
      jsonb(run.responsePayload),
      run.durationMs,
      run.error,
      jsonb(run.comparison),
      run.createdAt,
      run.completedAt,
    ],
  );
  return runView(result.rows[0]!);
}

export async function findRun(db: Queryable, projectId: string, id: string): Promise<ReplayRun | null> {
  const result = await db.query<RunRow>(`SELECT ${COLUMNS} FROM replay_runs WHERE project_id = $1 AND id = $2`, [projectId, id]);
  const row = result.rows[0];
  return row ? runView(row) : null;
}

/** The latest runs of one event, newest first (index replay_runs_event). */
export async function listRunsOfEvent(db: Queryable, projectId: string, eventId: string, limit: number): Promise<ReplayRun[]> {
  const result = await db.query<RunRow>(
    `SELECT ${COLUMNS} FROM replay_runs WHERE project_id = $1 AND event_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3`,
    [projectId, eventId, limit],
  );
  return result.rows.map(runView);
}
