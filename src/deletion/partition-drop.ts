import type { PoolClient, Queryable } from '../db/pool.ts';
import { listEventPartitions, type EventPartition } from '../db/event-partitions.ts';

/**
 * Retention by whole partitions of events (migration 0017). Retention removes journeys, not
 * events: a journey goes once its last event is older than its environment's retention, with
 * every event it has, whatever partition each lies in. So a day's partition may go as a whole
 * only when every journey with an event in it has expired, each by its own environment's
 * retention, and those journeys go in the same transaction, so that no journey ever stands
 * with some of its events gone. A partition holding an event of a journey still within its
 * retention stays; its expired journeys are deleted row by row by the sweep, as before.
 *
 * The transaction, in the lock order ingestion and deletion use (journeys, then events):
 *   1. SHARE lock on the partition: no event is added to or deleted from it meanwhile;
 *   2. the journeys with events in it, locked FOR UPDATE in id order and judged by their
 *      newest version (an event committed meanwhile counts), at most `limit` of them (the
 *      sweep's 500 journeys per transaction);
 *   3. DROP of the partition, then DELETE of those journeys (their aliases, tokens, ids,
 *      replay runs and events in other partitions cascade).
 * A short lock_timeout makes this transaction the one that gives up when it meets a writer
 * waiting on it (an ingestion holding a journey it needs): the next sweep tries again.
 */

const DROP_LOCK_TIMEOUT = '500ms';
const DAY_MS = 86_400_000;
const PARTITION_NAME = /^events_[a-z0-9_]+$/;

export type PartitionDropResult =
  | { dropped: true; journeys: number; events: number }
  | { dropped: false; reason: 'live_journey' | 'too_many_journeys' | 'lock_timeout' };

/**
 * Partitions that may hold only expired journeys: bounded above, no newer than the shortest
 * retention of any environment allows (a younger one holds events received within every
 * environment's retention, whose journeys are live unless their senders' clocks lag by days).
 */
export async function droppablePartitionCandidates(db: Queryable, nowMs: number): Promise<EventPartition[]> {
  const shortest = await db.query<{ days: number | null }>('SELECT min(retention_days)::int AS days FROM environments');
  const days = shortest.rows[0]?.days;
  if (days === null || days === undefined) return [];
  const cutoff = nowMs - days * DAY_MS;
  return (await listEventPartitions(db)).filter(
    (p) => !p.isDefault && p.upperBound !== null && p.upperBound.getTime() <= cutoff && PARTITION_NAME.test(p.name),
  );
}

const LOCK_NOT_AVAILABLE = '55P03';

/** Runs in the caller's transaction; after 'lock_timeout' that transaction is aborted and only rolls back. */
export async function dropExpiredPartition(
  client: PoolClient,
  partition: string,
  now: Date,
  limit: number,
): Promise<PartitionDropResult> {
  if (!PARTITION_NAME.test(partition)) throw new Error('not a partition name of events');
  await client.query(`SET LOCAL lock_timeout = '${DROP_LOCK_TIMEOUT}'`);
  try {
    await client.query(`LOCK TABLE "${partition}" IN SHARE MODE`);
    const held = await client.query<{ project_id: string; id: string; expired: boolean; event_count: number }>(
      `WITH held AS (
         SELECT DISTINCT project_id, journey_id FROM "${partition}" LIMIT $2
       )
       SELECT j.project_id, j.id, j.last_event_at < $1::timestamptz - e.retention_days * interval '1 day' AS expired, j.event_count
         FROM journeys j
         JOIN held h ON j.project_id = h.project_id AND j.id = h.journey_id
         JOIN environments e ON e.project_id = j.project_id AND e.id = j.environment_id
        ORDER BY j.id COLLATE "C", j.project_id
        FOR UPDATE OF j`,
      [now, limit + 1],
    );
    if (held.rows.length > limit) return { dropped: false, reason: 'too_many_journeys' };
    if (held.rows.some((row) => !row.expired)) return { dropped: false, reason: 'live_journey' };
    await client.query(`DROP TABLE "${partition}"`);
    if (held.rows.length > 0) {
      await client.query(
        `DELETE FROM journeys d USING unnest($1::uuid[], $2::text[]) AS x(project_id, id)
          WHERE d.project_id = x.project_id AND d.id = x.id`,
        [held.rows.map((row) => row.project_id), held.rows.map((row) => row.id)],
      );
    }
    return { dropped: true, journeys: held.rows.length, events: held.rows.reduce((sum, row) => sum + row.event_count, 0) };
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return { dropped: false, reason: 'lock_timeout' };
    throw error;
  }
}
