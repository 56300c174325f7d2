import type { Queryable } from '../db/pool.ts';

/** The backfill's persisted position (migration 0031): one row. */
export interface BackfillState {
  keyId: string;
  after: { projectId: string; journeyId: string } | null;
  journeysDone: number;
  completed: boolean;
}

interface StateRow {
  key_id: string;
  after_project_id: string | null;
  after_journey_id: string | null;
  journeys_done: string;
  completed_at: Date | null;
}

/**
 * Reads and locks the position for this batch's transaction. A missing row, or one kept under
 * another key (a rotation replaced it), starts from the beginning under the current key.
 */
export async function lockState(db: Queryable, currentKeyId: string): Promise<BackfillState> {
  await db.query(`INSERT INTO loose_token_backfill (id, key_id) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, [currentKeyId]);
  const row = (await db.query<StateRow>('SELECT key_id, after_project_id, after_journey_id, journeys_done, completed_at FROM loose_token_backfill WHERE id = 1 FOR UPDATE')).rows[0]!;
  if (row.key_id !== currentKeyId) return { keyId: currentKeyId, after: null, journeysDone: 0, completed: false };
  return {
    keyId: row.key_id,
    after: row.after_project_id === null || row.after_journey_id === null ? null : { projectId: row.after_project_id, journeyId: row.after_journey_id },
    journeysDone: Number(row.journeys_done),
    completed: row.completed_at !== null,
  };
}

export async function saveState(db: Queryable, state: BackfillState): Promise<void> {
  await db.query(
    `UPDATE loose_token_backfill SET key_id = $1, after_project_id = $2, after_journey_id = $3, journeys_done = $4,
        completed_at = CASE WHEN $5 THEN now() END, updated_at = now()
      WHERE id = 1`,
    [state.keyId, state.after?.projectId ?? null, state.after?.journeyId ?? null, state.journeysDone, state.completed],
  );
}

export interface JourneyKey {
  projectId: string;
  journeyId: string;
}

/** The next journeys after the position, in primary-key order: one index range per batch. */
export async function nextJourneys(db: Queryable, after: JourneyKey | null, limit: number): Promise<JourneyKey[]> {
  const result = await db.query<{ project_id: string; id: string }>(
    after === null
      ? 'SELECT project_id, id FROM journeys ORDER BY project_id, id LIMIT $1'
      : 'SELECT project_id, id FROM journeys WHERE (project_id, id) > ($2::uuid, $3::text) ORDER BY project_id, id LIMIT $1',
    after === null ? [limit] : [limit, after.projectId, after.journeyId],
  );
  return result.rows.map((row) => ({ projectId: row.project_id, journeyId: row.id }));
}

export interface StoredAlias {
  projectId: string;
  journeyId: string;
  type: string;
  valueEncrypted: string;
}

export async function aliasesOf(db: Queryable, journeys: JourneyKey[]): Promise<StoredAlias[]> {
  const result = await db.query<{ project_id: string; journey_id: string; alias_type: string; value_encrypted: string }>(
    `SELECT a.project_id, a.journey_id, a.alias_type, a.value_encrypted
       FROM unnest($1::uuid[], $2::text[]) AS k(project_id, journey_id)
       JOIN journey_aliases a ON a.project_id = k.project_id AND a.journey_id = k.journey_id`,
    [journeys.map((j) => j.projectId), journeys.map((j) => j.journeyId)],
  );
  return result.rows.map((row) => ({ projectId: row.project_id, journeyId: row.journey_id, type: row.alias_type, valueEncrypted: row.value_encrypted }));
}

export interface LooseTokenRow {
  projectId: string;
  journeyId: string;
  token: string;
  kind: string;
}

/**
 * The batch's journeys hold their loose tokens under the current key only: tokens of another
 * key go, the current ones go in (those ingestion already wrote stay).
 */
export async function replaceLooseTokens(db: Queryable, journeys: JourneyKey[], rows: LooseTokenRow[], keyId: string): Promise<void> {
  await db.query(
    `DELETE FROM loose_search_tokens l USING unnest($1::uuid[], $2::text[]) AS k(project_id, journey_id)
      WHERE l.project_id = k.project_id AND l.journey_id = k.journey_id AND l.key_id <> $3`,
    [journeys.map((j) => j.projectId), journeys.map((j) => j.journeyId), keyId],
  );
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO loose_search_tokens (project_id, token, journey_id, kind, key_id)
     SELECT r.project_id, r.token, r.journey_id, r.kind, $5 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS r(project_id, token, journey_id, kind)
     ON CONFLICT DO NOTHING`,
    [rows.map((r) => r.projectId), rows.map((r) => r.token), rows.map((r) => r.journeyId), rows.map((r) => r.kind), keyId],
  );
}
