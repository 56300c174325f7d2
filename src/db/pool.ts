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
}

export function createPool(options: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    application_name: options.applicationName ?? 'jtrace',
    // Every connection carries the timeout, so no statement can forget it.
    options: `-c statement_timeout=${options.statementTimeoutMs}`,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  return pool;
}

/** Runs fn in one transaction; commits on success, rolls back on any error. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** PostgreSQL's code for a statement cancelled by statement_timeout. */
export const QUERY_CANCELED = '57014';

export function isStatementTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === QUERY_CANCELED;
}
