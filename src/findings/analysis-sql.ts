// SQL of the incremental walk's state (migration 0030): one row per journey walked, read with
// the journey's event count in the read's snapshot, written with the findings in the storing
// transaction. Removed with its journey (ON DELETE CASCADE).

import type { Queryable } from '../db/pool.ts';
import type { TimelinePosition } from '../query/journey-payloads.ts';
import { decodeWalkState, encodeWalkState, type EncodedState } from './walk-state.ts';
import type { WalkState } from './walk-state.ts';

export interface StoredWalk {
  walked: number;
  position: TimelinePosition | null;
  rewalking: boolean;
  generation: number;
  state: WalkState;
}

export interface JourneyWalkRow {
  /** The journey's event count in the read's snapshot. */
  eventCount: number;
  walk: StoredWalk | null;
}

const TEXT = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

/** The journeys' event counts and stored walks; a journey gone is absent. */
export async function selectWalks(db: Queryable, projectId: string, journeyIds: readonly string[]): Promise<Map<string, JourneyWalkRow>> {
  const result = await db.query<{
    id: string; event_count: number; walked: number | null; pos_ts: string | null; pos_received: string | null; pos_id: string | null;
    rewalking: boolean | null; generation: number | null; state: EncodedState | null;
  }>({
    name: 'findings-select-walks',
    text: `SELECT j.id, j.event_count, s.walked, ${TEXT('s.pos_ts')} AS pos_ts, ${TEXT('s.pos_received')} AS pos_received, s.pos_id,
            s.rewalking, s.generation, s.state
       FROM unnest($2::text[]) AS k(id)
       JOIN journeys j ON j.project_id = $1 AND j.id = k.id
       LEFT JOIN journey_analysis s ON s.project_id = $1 AND s.journey_id = k.id`,
    values: [projectId, journeyIds],
  });
  return new Map(result.rows.map((row) => [row.id, {
    eventCount: row.event_count,
    walk: row.state === null ? null : {
      walked: row.walked!,
      position: row.pos_id === null ? null : { timestamp: row.pos_ts!, receivedAt: row.pos_received!, id: row.pos_id },
      rewalking: row.rewalking!,
      generation: row.generation!,
      state: decodeWalkState(row.state),
    },
  }]));
}

/** The generation of each journey's stored walk (null: none), read in the storing transaction after its lock. */
export async function selectWalkGenerations(db: Queryable, keys: ReadonlyArray<{ projectId: string; id: string }>): Promise<Map<string, number | null>> {
  const result = await db.query<{ project_id: string; journey_id: string; generation: number }>(
    `SELECT s.project_id, s.journey_id, s.generation FROM journey_analysis s
       JOIN unnest($1::uuid[], $2::text[]) AS k(project_id, id) ON s.project_id = k.project_id AND s.journey_id = k.id`,
    [keys.map((k) => k.projectId), keys.map((k) => k.id)],
  );
  const generations = new Map<string, number | null>(keys.map((k) => [`${k.projectId}\u0000${k.id}`, null]));
  for (const row of result.rows) generations.set(`${row.project_id}\u0000${row.journey_id}`, row.generation);
  return generations;
}

/** Writes the walks (one statement for a batch). */
export async function upsertWalks(db: Queryable, walks: ReadonlyArray<{ projectId: string; journeyId: string; walk: StoredWalk }>): Promise<void> {
  if (walks.length === 0) return;
  const rows = walks.map(({ projectId, journeyId, walk }) => ({
    project_id: projectId,
    journey_id: journeyId,
    walked: walk.walked,
    pos_ts: walk.position?.timestamp ?? null,
    pos_received: walk.position?.receivedAt ?? null,
    pos_id: walk.position?.id ?? null,
    rewalking: walk.rewalking,
    generation: walk.generation,
    state: encodeWalkState(walk.state),
  }));
  await db.query(
    `INSERT INTO journey_analysis (project_id, journey_id, walked, pos_ts, pos_received, pos_id, rewalking, generation, state)
     SELECT r.project_id, r.journey_id, r.walked, r.pos_ts::timestamp AT TIME ZONE 'UTC', r.pos_received::timestamp AT TIME ZONE 'UTC',
            r.pos_id, r.rewalking, r.generation, r.state
       FROM jsonb_to_recordset($1::jsonb) AS r(project_id uuid, journey_id text, walked int, pos_ts text, pos_received text, pos_id text,
                                               rewalking boolean, generation int8, state jsonb)
     ON CONFLICT (project_id, journey_id) DO UPDATE SET walked = EXCLUDED.walked, pos_ts = EXCLUDED.pos_ts, pos_received = EXCLUDED.pos_received,
        pos_id = EXCLUDED.pos_id, rewalking = EXCLUDED.rewalking, generation = EXCLUDED.generation, state = EXCLUDED.state`,
    [JSON.stringify(rows)],
  );
}

/** Moves marks that still hold the value read to the back of the queue: their journeys have more to walk. */
export async function requeueMarks(db: Queryable, marks: ReadonlyArray<{ projectId: string; id: string; pending: number }>): Promise<void> {
  if (marks.length === 0) return;
  await db.query(
    `UPDATE journey_findings_pending p SET pending = nextval('journey_findings_pending_seq')
       FROM unnest($1::uuid[], $2::text[], $3::int8[]) AS k(project_id, journey_id, pending)
      WHERE p.project_id = k.project_id AND p.journey_id = k.journey_id AND p.pending = k.pending`,
    [marks.map((m) => m.projectId), marks.map((m) => m.id), marks.map((m) => m.pending)],
  );
}

/**
 * Marks of walked journeys that an event changed while they were walked stay for the next pass;
 * what waits is then only what committed after the walk's read, so their lag counts from the read
 * (else a journey fed without a pause never has its mark cleared, and its lag grows without end
 * while every pass keeps up). An event whose transaction began before the read and committed
 * after it waited a little longer than that: by the length of its own transaction.
 */
export async function advanceMarks(db: Queryable, marks: ReadonlyArray<{ projectId: string; id: string; pending: number; readAt: Date }>): Promise<void> {
  if (marks.length === 0) return;
  await db.query(
    `UPDATE journey_findings_pending p SET pending_at = k.read_at
       FROM unnest($1::uuid[], $2::text[], $3::int8[], $4::timestamptz[]) AS k(project_id, journey_id, pending, read_at)
      WHERE p.project_id = k.project_id AND p.journey_id = k.journey_id AND p.pending <> k.pending AND p.pending_at < k.read_at`,
    [marks.map((m) => m.projectId), marks.map((m) => m.id), marks.map((m) => m.pending), marks.map((m) => m.readAt)],
  );
}
