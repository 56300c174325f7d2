// Reads of a journey's events in timeline order (the event list's pages, the forensic reads)
// stop after what they need only when PostgreSQL merges the timeline index of each day partition
// in order under the LIMIT (Merge Append). When its statistics take the journey for a short one
// (a journey outside the most common values of the sample, or one that grew since the last
// ANALYZE: a key feeding one journey) it rather reads every event of the journey and sorts them,
// and the first page of a 200,000-event journey read all 200,000 rows. Sorting is turned off for
// these statements alone, so the ordered merge is the plan whatever the estimate; for a short
// journey the two plans cost the same (docs/operations.md, "Very long journeys").

import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';

export interface OrderedQuery {
  text: string;
  values: unknown[];
}

/** The rows of a statement that reads events in timeline order, planned without a sort. */
export async function queryInTimelineOrder<R extends object>(pool: Pool, query: OrderedQuery): Promise<R[]> {
  return withTransaction(pool, async (client) => {
    // Sorting off prices any remaining sort at PostgreSQL's disable cost, far above jit_above_cost:
    // where the server has JIT (Debian's PostgreSQL 15 does), each such read compiled ~90 functions
    // with optimisation, a second a read on a journey of a few events. JIT is off with it.
    await client.query('SET LOCAL enable_sort = off; SET LOCAL jit = off');
    return (await client.query<R>(query.text, query.values)).rows;
  });
}

/**
 * The same for a read that may run inside a caller's transaction (a dry run reads with the
 * transaction's client): given the pool it plans without a sort in a transaction of its own;
 * given a client it runs as it stands, since a setting it changed would outlive the statement.
 */
export async function queryUnsorted<R extends object>(db: Queryable, query: OrderedQuery): Promise<R[]> {
  const pool = db as Partial<Pool>;
  // A pool (or the tests' explaining pool) has connect and no release; a pg Client has a connection.
  if (typeof pool.connect === 'function' && !('release' in db) && !('connection' in db)) return queryInTimelineOrder<R>(db as Pool, query);
  return (await db.query<R>(query.text, query.values)).rows;
}
