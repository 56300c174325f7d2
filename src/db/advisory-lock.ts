// Session advisory locks of the jobs that must run one at a time across every process and
// replica on the database. The lock is held on a connection of its own for the whole run, while
// the batches commit through other pooled connections. If that connection dies PostgreSQL
// releases the lock and another process may start, so runs ask `isHeld()` between batches and
// stop when it answers false (interface-spec 5: rotation exits 1 when the lock is lost).

import type { Pool, PoolClient } from './pool.ts';

/**
 * Every advisory lock key of jtrace, in one place so that no two jobs share one by accident.
 * All are below 2^31, so pg_locks shows them as objid with classid 0.
 */
export const ADVISORY_LOCK_KEYS = {
  /** The migrator's bootstrap lock (transaction-level, src/db/migrate.ts). */
  migrations: 7_314_001,
  /** The retention sweep and `delete:range`: one deletion by age at a time. */
  retention: 7_314_002,
  /** `rotate:reencrypt`: one rotation at a time. */
  rotation: 7_314_003,
  /** The findings analyzer: one instance analyses, every instance serves (src/findings/analyzer.ts). */
  findings: 7_314_004,
  /** The alert dispatcher: one instance sends from the outbox. */
  alerts: 7_314_005,
  /** Creating the daily partitions of events ahead (src/db/event-partitions.ts). */
  eventPartitions: 7_314_017,
  /** Loose search tokens for aliases stored before them or under a replaced key (src/loose-backfill). */
  looseBackfill: 7_314_031,
} as const;

export const RETENTION_LOCK_KEY = ADVISORY_LOCK_KEYS.retention;
export const ROTATION_LOCK_KEY = ADVISORY_LOCK_KEYS.rotation;

export interface HeldLock {
  /** True while the lock's session is alive and still holds the lock. */
  isHeld(): Promise<boolean>;
  /** Releases the lock and returns its connection; never throws. */
  release(): Promise<void>;
}

/** Takes a session lock without waiting (`pg_try_advisory_lock`); null when another session holds it. */
export async function trySessionLock(pool: Pool, key: number): Promise<HeldLock | null> {
  const client = await pool.connect();
  let broken = false;
  // A checked-out connection has no pool error listener: one that fails while idle must not
  // take the process down; it is discarded on release.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
    if (!result.rows[0]!.locked) {
      client.off('error', onError);
      client.release();
      return null;
    }
  } catch (error) {
    client.off('error', onError);
    client.release(true);
    throw error;
  }
  return {
    isHeld: () => (broken ? Promise.resolve(false) : stillHeld(client, key).catch(() => ((broken = true), false))),
    release: async () => {
      if (!broken) await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => (broken = true));
      client.off('error', onError);
      // A broken connection is destroyed rather than handed back to the pool.
      client.release(broken ? true : undefined);
    },
  };
}

async function stillHeld(client: PoolClient, key: number): Promise<boolean> {
  // The key fits in 32 bits: pg_locks shows it as classid 0, objid key, objsubid 1 (bigint form).
  const result = await client.query<{ held: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
        AND classid = 0 AND objid = $1 AND objsubid = 1) AS held`,
    [key],
  );
  return result.rows[0]!.held;
}
