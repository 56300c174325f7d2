// SQL of expectations: one row per project and entity type (migration 0007).

import { ADVISORY_LOCK_KEYS } from '../db/advisory-lock.ts';
import type { Queryable } from '../db/pool.ts';
import type { Expectation } from './expectation-input.ts';
import { markEntityType } from './pending-sql.ts';

interface ExpectationRecord {
  entity_type: string;
  steps: Array<{ name: string; optional: boolean }>;
  final_step: string;
  max_gap_seconds: number | null;
  deadline_seconds: number | null;
  updated_at: Date;
}

export interface StoredExpectation extends Expectation {
  entityType: string;
  updatedAt: Date;
}

function fromRecord(row: ExpectationRecord): StoredExpectation {
  return {
    entityType: row.entity_type,
    steps: row.steps,
    finalStep: row.final_step,
    maxGapSeconds: row.max_gap_seconds,
    deadlineSeconds: row.deadline_seconds,
    updatedAt: row.updated_at,
  };
}

const COLUMNS = 'entity_type, steps, final_step, max_gap_seconds, deadline_seconds, updated_at';

export async function selectExpectation(db: Queryable, projectId: string, entityType: string): Promise<StoredExpectation | null> {
  const result = await db.query<ExpectationRecord>(`SELECT ${COLUMNS} FROM expectations WHERE project_id = $1 AND entity_type = $2`, [projectId, entityType]);
  return result.rows[0] === undefined ? null : fromRecord(result.rows[0]);
}

export async function selectExpectations(db: Queryable, projectId: string): Promise<StoredExpectation[]> {
  const result = await db.query<ExpectationRecord>(`SELECT ${COLUMNS} FROM expectations WHERE project_id = $1 ORDER BY entity_type COLLATE "C"`, [projectId]);
  return result.rows.map(fromRecord);
}

/**
 * The project's expectations, for as long as the caller's transaction lasts: shared by batches
 * that compute findings of the journeys they create, alone by a change of an expectation. A
 * change then waits for those batches to commit before it marks the entity type's journeys
 * (those journeys included), and a batch that starts after it reads the new expectation.
 */
export async function lockExpectations(db: Queryable, projectId: string, mode: 'shared' | 'alone'): Promise<void> {
  const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await db.query(`SELECT ${lock}($1, hashtext($2))`, [ADVISORY_LOCK_KEYS.expectations, projectId]);
}

/** The expectations of some entity types of one project, by entity type. */
export async function selectExpectationsOf(db: Queryable, projectId: string, entityTypes: string[]): Promise<Map<string, StoredExpectation>> {
  const result = await db.query<ExpectationRecord>({
    name: 'expectations-of-entity-types',
    text: `SELECT ${COLUMNS} FROM expectations WHERE project_id = $1 AND entity_type = ANY($2::text[])`,
    values: [projectId, entityTypes],
  });
  return new Map(result.rows.map((row) => [row.entity_type, fromRecord(row)]));
}

/**
 * Saves the expectation and marks the entity type's journeys for analysis again, so their
 * overdue and skipped_step findings follow the new expectation.
 */
export async function upsertExpectation(db: Queryable, projectId: string, entityType: string, expectation: Expectation): Promise<StoredExpectation> {
  await lockExpectations(db, projectId, 'alone');
  const result = await db.query<ExpectationRecord>(
    `INSERT INTO expectations (project_id, entity_type, steps, final_step, max_gap_seconds, deadline_seconds, updated_at)
     VALUES ($1, $2, $3::jsonb, $4, $5, $6, now())
     ON CONFLICT (project_id, entity_type) DO UPDATE SET steps = EXCLUDED.steps, final_step = EXCLUDED.final_step,
       max_gap_seconds = EXCLUDED.max_gap_seconds, deadline_seconds = EXCLUDED.deadline_seconds, updated_at = now()
     RETURNING ${COLUMNS}`,
    [projectId, entityType, JSON.stringify(expectation.steps), expectation.finalStep, expectation.maxGapSeconds, expectation.deadlineSeconds],
  );
  await markEntityType(db, projectId, entityType);
  return fromRecord(result.rows[0]!);
}

export async function deleteExpectation(db: Queryable, projectId: string, entityType: string): Promise<boolean> {
  await lockExpectations(db, projectId, 'alone');
  const result = await db.query('DELETE FROM expectations WHERE project_id = $1 AND entity_type = $2', [projectId, entityType]);
  if ((result.rowCount ?? 0) === 0) return false;
  await markEntityType(db, projectId, entityType);
  return true;
}
