import type { Pool, PoolClient } from '../db/pool.ts';
import { RETENTION_LOCK_KEY } from './limits.ts';

/**
 * The retention lock: a session-level advisory lock held on a connection of its own for the
 * whole run, while the batches commit through other connections. If that connection dies
 * the server releases the lock and another process may start deleting, so runs ask `isHeld()`
 * between batches and stop when it answers false.
 */
export interface HeldLock {
  /** True while the lock's session is alive and still holds the lock. */
  isHeld(): Promise<boolean>;
  /** Releases the lock and returns its connection; never throws. */
  release(): Promise<void>;
}

/** Returns null when another session holds the lock (`pg_try_advisory_lock` never waits). */
export async function tryRetentionLock(pool: Pool): Promise<HeldLock | null> {
  const client = await pool.connect();
  let broken = false;
  // A connection that fails while idle must not take the process down; it is discarded on release.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [RETENTION_LOCK_KEY]);
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
    isHeld: () => (broken ? Promise.resolve(false) : stillHeld(client).catch(() => ((broken = true), false))),
    release: async () => {
      if (!broken) await client.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_KEY]).catch(() => (broken = true));
      client.off('error', onError);
      // A broken connection is destroyed rather than handed back to the pool.
      client.release(broken ? true : undefined);
    },
  };
}

async function stillHeld(client: PoolClient): Promise<boolean> {
  // The key fits in 32 bits: pg_locks shows it as classid 0, objid key, objsubid 1 (bigint form).
  const result = await client.query<{ held: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
        AND classid = 0 AND objid = $1 AND objsubid = 1) AS held`,
    [RETENTION_LOCK_KEY],
  );
  return result.rows[0]!.held;
}
