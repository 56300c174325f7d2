import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that runs a query: the pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

// int8 counts fit in a double for every count jtrace keeps.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface PoolOptions {
  connectionString: string;
  max: number;
  /** 0 disables the timeout. */
  statementTimeoutMs: number;
  applicationName?: string;
  /** How long to wait for a connection, in ms; 10 s when omitted. */
  connectionTimeoutMs?: number;
}

export function createPool(options: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    application_name: options.applicationName ?? 'jtrace',
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
    // Every connection carries the timeout, so no statement can forget it. Set by a statement
    // before the connection is handed out, not by the `options` startup parameter: PgBouncer
    // refuses a connection that sends one ("unsupported startup parameter: options") or, told
    // to ignore it, drops the timeout silently (docs/deployment.md, "PgBouncer").
    onConnect: async (client) => {
      await client.query(`SET statement_timeout = ${Math.trunc(options.statementTimeoutMs)}`);
    },
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  // Nor may one that is checked out: the pool listens only while a client is idle, and pg emits
  // 'error' on a client whose connection ends (terminated, a restart, a failover) even when a
  // statement is running. The statement, or the next one, fails with the error itself, the request
  // answers 503, and the broken client is dropped when released.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

/** Runs fn in one transaction; commits on success, rolls back on any error. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query('BEGIN');
    result = await fn(client);
    await commitReplicated(client);
  } catch (error) {
    // A connection that was lost is dropped rather than handed back to the pool.
    const lost = isDatabaseUnavailable(error);
    if (!lost) await client.query('ROLLBACK').catch(() => {});
    client.release(lost ? true : undefined);
    throw error;
  }
  client.release();
  return result;
}

/**
 * PostgreSQL's WARNING when a COMMIT's wait for the synchronous standby ends early: by a cancel
 * (statement_timeout, pg_cancel_backend) or by the backend being terminated. The COMMIT then
 * reports success although the transaction is only committed locally; a failover to the
 * standby would lose it. Matched on the text as the server has no SQLSTATE of its own for it
 * (01000, any warning); the text is English with the lc_messages 'C' of jtrace's deployments.
 */
const SYNC_REPLICATION_CANCELLED = /^canceling (the )?wait for synchronous replication/;

/**
 * A commit PostgreSQL could not confirm on its synchronous standby. It carries 08007
 * (transaction_resolution_unknown), so it counts as the database being unavailable: the request
 * is answered 503 with Retry-After, never 2xx, and the client's resend finds its events stored
 * (a duplicate) once the standby confirms them.
 */
export class CommitNotReplicatedError extends Error {
  readonly code = '08007';
  constructor() {
    super('The commit was not confirmed by the synchronous standby.');
    this.name = 'CommitNotReplicatedError';
  }
}

/** COMMIT, refusing a success that PostgreSQL reports with the warning above. */
async function commitReplicated(client: PoolClient): Promise<void> {
  let cancelled = false;
  const onNotice = (notice: { message?: string }) => {
    if (SYNC_REPLICATION_CANCELLED.test(notice.message ?? '')) cancelled = true;
  };
  // The warning arrives before the COMMIT's own completion, so it is seen before the await ends.
  client.on('notice', onNotice);
  try {
    await client.query('COMMIT');
  } finally {
    client.off('notice', onNotice);
  }
  if (cancelled) throw new CommitNotReplicatedError();
}

// Socket errors of a connection that cannot be made or was cut.
const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
// SQLSTATEs of a server that is down, starting, shutting down or full: class 08 is checked apart.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
// pg and pg-pool signal a lost or impossible connection only by message; matched, never shown.
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end)/;

/** True when the database cannot be reached now (down, restarting, full), as opposed to a failing statement. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) {
    return true;
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message);
}

/** PostgreSQL's code for a statement cancelled by statement_timeout. */
export const QUERY_CANCELED = '57014';

export function isStatementTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === QUERY_CANCELED;
}

/** SQLSTATEs after which a resend may succeed although the database is up: a conflict or a cancelled statement. */
const RETRYABLE_SQLSTATES = new Set(['40001', '40P01', QUERY_CANCELED]);

/**
 * True for a failure that says nothing about the request: the database is unreachable,
 * restarting or full (isDatabaseUnavailable), or the statement lost a conflict or ran too long.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
}
