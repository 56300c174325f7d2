// The read of a batch's walks, in one snapshot (docs/findings.md, "Incremental analysis"): each
// journey's stored walk and event count, then its events after the walk's position (at most
// `take`), and the event the next hand-off leaves from. A walk is started again from the first
// event when it was made under another key or expectation, or when an event committed since
// sorts before its position: the journey then has more events than the walk counted plus those
// after the position, all read in the same snapshot, so no late commit can slip between.

import { withTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import {
  countJourneysEventsAfter,
  readJourneysPayloadsAfter,
  readPayloadEventsByKey,
  type PayloadEvent,
  type PositionedEvent,
  type TimelinePosition,
} from '../query/journey-payloads.ts';
import { selectWalks, type StoredWalk } from './analysis-sql.ts';
import { emptyWalkState } from './walk-state.ts';

export interface WalkRead {
  /** The walk to go on from (a new one when started again). */
  walk: StoredWalk;
  /** The generation of the stored walk, null when there is none. */
  readGeneration: number | null;
  /** The event the state names as carried, read again; null when none. */
  carried: PayloadEvent | null;
  /** The next events, in timeline order. */
  events: PositionedEvent[];
  /** True when `events` reach the end of the journey. */
  finished: boolean;
  /** When the read's snapshot was taken (the database's clock). */
  readAt: Date;
}

export interface ReadCounts {
  /** Events read after a walk's position. */
  events: number;
  /** Events read again as the carried step of a hand-off (at most one per journey and pass). */
  carried: number;
}

interface Wanted {
  id: string;
  /** expectationFingerprint of the journey's expectation. */
  expectation: string | null;
}

export async function readWalks(pool: Pool, projectId: string, wanted: readonly Wanted[], keyId: string, take: number, counts: ReadCounts): Promise<Map<string, WalkRead>> {
  return withTransaction(pool, async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    // Ordered reads merge each day's timeline index under the limit (src/query/timeline-order.ts).
    const readAt = (await client.query<{ at: Date }>(`SELECT set_config('enable_sort', 'off', true), set_config('jit', 'off', true), now() AS at`)).rows[0]!.at;
    const stored = await selectWalks(client, projectId, wanted.map((w) => w.id));
    const reads = new Map<string, WalkRead>();
    const eventCounts = new Map<string, number>();
    for (const { id, expectation } of wanted) {
      const row = stored.get(id);
      if (row === undefined) continue; // deleted meanwhile
      eventCounts.set(id, row.eventCount);
      const usable = row.walk !== null && row.walk.state.keyId === keyId && row.walk.state.expectation === expectation;
      reads.set(id, { walk: usable ? row.walk! : fresh(keyId, expectation), readGeneration: row.walk?.generation ?? null, carried: null, events: [], finished: false, readAt });
    }
    const events = await readAfter(client, projectId, reads, [...reads.keys()], take, counts);
    // Late events: more events than walked plus those after the position.
    const restart: string[] = [];
    const capped: string[] = [];
    for (const [id, read] of reads) {
      if (read.walk.position === null) continue;
      const after = events.get(id)?.length ?? 0;
      if (after <= take) {
        if (eventCounts.get(id)! !== read.walk.walked + after) restart.push(id);
      } else if (!read.walk.rewalking) capped.push(id);
    }
    if (capped.length > 0) {
      const after = await countJourneysEventsAfter(client, projectId, capped.map((id) => ({ journeyId: id, after: reads.get(id)!.walk.position })));
      for (const id of capped) if (eventCounts.get(id)! !== reads.get(id)!.walk.walked + (after.get(id) ?? 0)) restart.push(id);
    }
    for (const id of restart) reads.get(id)!.walk = fresh(keyId, reads.get(id)!.walk.state.expectation);
    for (const [id, again] of await readAfter(client, projectId, reads, restart, take, counts)) events.set(id, again);
    for (const [id, read] of reads) {
      const got = events.get(id) ?? [];
      read.finished = got.length <= take;
      read.events = got.slice(0, take);
    }
    await readCarried(client, projectId, reads, counts);
    return reads;
  });
}

function fresh(keyId: string, expectation: string | null): StoredWalk {
  return { walked: 0, position: null, rewalking: true, generation: 0, state: emptyWalkState(keyId, expectation) };
}

/** Up to take + 1 events after each position: the one past `take` says the walk has more to go. */
async function readAfter(client: PoolClient, projectId: string, reads: Map<string, WalkRead>, ids: readonly string[], take: number, counts: ReadCounts): Promise<Map<string, PositionedEvent[]>> {
  const starts = ids.map((id) => ({ journeyId: id, after: reads.get(id)!.walk.position as TimelinePosition | null }));
  const events = await readJourneysPayloadsAfter(client, projectId, starts, take + 1);
  // A journey with none still needs its entry: a restarted one replaces what was read before.
  for (const id of ids) if (!events.has(id)) events.set(id, []);
  for (const list of events.values()) counts.events += list.length;
  return events;
}

async function readCarried(client: PoolClient, projectId: string, reads: Map<string, WalkRead>, counts: ReadCounts): Promise<void> {
  const keys = [...reads.values()].filter((read) => read.events.length > 0 && read.walk.state.carried !== null).map((read) => read.walk.state.carried!);
  if (keys.length === 0) return;
  const carried = await readPayloadEventsByKey(client, projectId, keys);
  counts.carried += carried.size;
  for (const read of reads.values()) {
    const key = read.walk.state.carried;
    if (read.events.length > 0 && key !== null) read.carried = carried.get(key.id)?.event ?? null;
  }
}
