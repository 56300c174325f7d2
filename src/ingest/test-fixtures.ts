// Test fixtures shared by the ingestion integration tests (never part of the build).
import type { Queryable } from '../db/pool.ts';

let counter = 0;
/** A short id unique within this test process. */
export const uid = () => `${process.pid.toString(36)}_${(++counter).toString(36)}`;

/** A valid protocol 0.1 event with fresh event and journey ids; fields override. */
export function testEvent(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `evt_${uid()}`, journeyId: `jrn_${uid()}`, environment: 'production', service: 'checkout',
    entity: { type: 'order', id: 'ord-1001' }, operation: 'received', name: 'order received',
    timestamp: '2026-08-06T16:31:02.120Z', ...fields,
  };
}

export const testEnvelope = (fields: Record<string, unknown> = {}) => ({ protocolVersion: '0.1', event: testEvent(fields) });

export async function countRows(db: Queryable, sql: string, params: unknown[]): Promise<number> {
  return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]!.n;
}

/** What one journey left in the database, row counts per table. */
export async function journeyTrace(db: Queryable, projectId: string, journeyId: string) {
  const where = 'WHERE project_id = $1 AND journey_id = $2';
  return {
    journeys: await countRows(db, 'journeys WHERE project_id = $1 AND id = $2', [projectId, journeyId]),
    events: await countRows(db, `events ${where}`, [projectId, journeyId]),
    aliases: await countRows(db, `journey_aliases ${where}`, [projectId, journeyId]),
    tokens: await countRows(db, `search_tokens ${where}`, [projectId, journeyId]),
  };
}

export const NO_TRACE = { journeys: 0, events: 0, aliases: 0, tokens: 0 };
