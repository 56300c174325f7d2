// The rotation lock: one rotate:reencrypt at a time across every process and replica. It is a
// session advisory lock held on a connection of its own for the whole run, so batches can use
// ordinary pooled transactions; if that connection dies, PostgreSQL releases the lock, and the
// job notices before its next batch and stops (interface-spec 5: exit 1 when the lock is lost).

import type { Pool, PoolClient } from '../db/pool.ts';

/**
 * Advisory lock key of the rotation job. Other jobs use their own keys (the migrator's
 * bootstrap lock is 7_314_001); below 2^31, so pg_locks shows it as objid with classid 0.
 */
export const ROTATION_LOCK_KEY = 7_314_003;

export interface HeldLock {
  /** True while the lock's connection is alive and still holds the lock. */
  stillHeld(): Promise<boolean>;
  release(): Promise<void>;
}

/** Takes the lock without waiting; null when another session holds it. */
export async function tryRotationLock(pool: Pool): Promise<HeldLock | null> {
  const client: PoolClient = await pool.connect();
  // A checked-out client has no pool error listener: a dropped connection must not crash us.
  let broken = false;
  client.on('error', () => {
    broken = true;
  });
  let taken = false;
  try {
    const result = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [ROTATION_LOCK_KEY]);
    taken = result.rows[0]?.taken === true;
  } finally {
    if (!taken) client.release();
  }
  if (!taken) return null;
  return {
    async stillHeld() {
      if (broken) return false;
      try {
        const result = await client.query<{ held: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM pg_locks
                           WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
                             AND classid = 0 AND objid = $1 AND objsubid = 1) AS held`,
          [ROTATION_LOCK_KEY],
        );
        return result.rows[0]?.held === true;
      } catch {
        broken = true;
        return false;
      }
    },
    async release() {
      if (broken) {
        // Destroy rather than return a dead connection to the pool.
        client.release(true);
        return;
      }
      try {
        await client.query('SELECT pg_advisory_unlock($1)', [ROTATION_LOCK_KEY]);
        client.release();
      } catch {
        client.release(true);
      }
    },
  };
}
