// SQL of expectations: one row per project and entity type (migration 0007).

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
 * Saves the expectation and marks the entity type's journeys for analysis again, so their
 * overdue and skipped_step findings follow the new expectation.
 */
export async function upsertExpectation(db: Queryable, projectId: string, entityType: string, expectation: Expectation): Promise<StoredExpectation> {
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
  const result = await db.query('DELETE FROM expectations WHERE project_id = $1 AND entity_type = $2', [projectId, entityType]);
  if ((result.rowCount ?? 0) === 0) return false;
  await markEntityType(db, projectId, entityType);
  return true;
}
