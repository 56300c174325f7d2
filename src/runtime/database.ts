import pg from 'pg';
import type { Config } from '../config/config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.ts';
import { createPool, type Pool } from '../db/pool.ts';

const EMBEDDED_DATABASE = 'jtrace';

export interface OpenDatabase {
  pool: Pool;
  /** Present in embedded mode. */
  embedded: EmbeddedDatabase | null;
  close(): Promise<void>;
}

/** The production database from DATABASE_URL, or the embedded one in JTRACE_DATA_DIR (./.data). */
export async function openDatabase(
  config: Config,
  options: { dataDir?: string; applicationName: string; poolMax?: number },
): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let embedded: EmbeddedDatabase | null = null;
  if (url === null) {
    embedded = await startEmbeddedPostgres({ dataDir: options.dataDir ?? config.dataDir, port: config.embeddedPgPort });
    url = await ensureEmbeddedDatabase(embedded.url);
  }
  const pool = createPool({
    connectionString: url,
    max: options.poolMax ?? config.poolMax,
    statementTimeoutMs: config.statementTimeoutMs,
    applicationName: options.applicationName,
  });
  return {
    pool,
    embedded,
    async close() {
      await pool.end();
      if (embedded?.startedHere) await embedded.stop();
    },
  };
}

async function ensureEmbeddedDatabase(serverUrl: string): Promise<string> {
  const client = new pg.Client(serverUrl);
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`).catch((error: { code?: string }) => {
        // Two processes starting at once: the other one created it.
        if (error.code !== '42P04') throw error;
      });
    }
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${EMBEDDED_DATABASE}`;
  return url.toString();
}
