// What a connection pooler between jtrace and PostgreSQL (PgBouncer, docs/deployment.md) does
// with a client's session. jtrace needs each connection to keep one server session for its
// whole life: its jobs hold session advisory locks (src/db/advisory-lock.ts), ingestion and reads
// use named prepared statements, and each connection sets its statement_timeout once. Transaction
// and statement pooling hand the server session to other clients between transactions or
// statements, which silently breaks all three, so the server refuses to start behind them.

import pg from 'pg';
import type { Pool } from './pool.ts';

export type PoolingMode = 'session' | 'transaction' | 'statement';

/** Extra clients that each hold a transaction open while the first one's session is watched. */
const HOLDERS = 3;

// PgBouncer's own words when a client opens a transaction in statement mode; matched, never shown.
const STATEMENT_POOLING_REFUSAL = /transaction blocks not allowed in statement pooling mode/;

const backendPid = async (client: pg.Client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

/**
 * Finds whether the connections of `config` keep their server session. A client reads its
 * backend pid outside any transaction; then other clients open transactions one by one and
 * hold them. Without a pooler, or with session pooling, the first client keeps its backend and
 * no other client ever sees it. With transaction pooling the freed backend goes to the next
 * transaction (PgBouncer reuses the last freed server first), so a holder reports the first
 * client's pid, or the first client comes back on another backend. Statement pooling refuses
 * the holder's BEGIN outright. Throws what the connection throws when the database cannot be
 * reached.
 */
export async function detectPoolingMode(config: pg.ClientConfig): Promise<PoolingMode> {
  const clients: pg.Client[] = [];
  const open = async () => {
    const client = new pg.Client(config);
    // A connection the pooler closes emits 'error' as well as failing the statement.
    client.on('error', () => {});
    clients.push(client);
    await client.connect();
    return client;
  };
  try {
    const watched = await open();
    const first = await backendPid(watched);
    for (let i = 0; i < HOLDERS; i++) {
      const holder = await open();
      try {
        await holder.query('BEGIN');
      } catch (error) {
        if (STATEMENT_POOLING_REFUSAL.test(String((error as { message?: unknown }).message))) return 'statement';
        throw error;
      }
      if ((await backendPid(holder)) === first) return 'transaction';
      if ((await backendPid(watched)) !== first) return 'transaction';
    }
    return 'session';
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
  }
}

/** The same check with the pool's own connection settings. */
export function detectPoolPoolingMode(pool: Pool): Promise<PoolingMode> {
  const { onConnect: _hook, ...config } = pool.options as pg.PoolConfig;
  return detectPoolingMode(config);
}

/** Why jtrace cannot run with this mode, or null when it can. Names the variable and the fix. */
export function poolingModeProblem(mode: PoolingMode): string | null {
  if (mode === 'session') return null;
  return `DATABASE_URL leads through a connection pooler in ${mode} pooling mode (PgBouncer pool_mode = ${mode}): `
    + 'jtrace needs session pooling, because its jobs hold session advisory locks, ingestion and reads use named prepared statements '
    + `and each connection sets its statement_timeout, and ${mode} pooling hands the server session to other clients between ${mode}s. `
    + 'Use pool_mode = session for jtrace\'s database, or point DATABASE_URL at PostgreSQL directly (docs/deployment.md, "PgBouncer")';
}
