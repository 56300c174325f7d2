import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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
    url = await ensureEmbeddedDatabase(embedded.url, options.dataDir ?? config.dataDir);
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

/** The application's role in embedded mode: owns the jtrace database, is no superuser. */
export const EMBEDDED_APP_ROLE = 'jtrace_app';

/** The app role's password, generated once beside the cluster's own (mode 0600). */
function appPassword(dataDir: string): string {
  const file = path.join(path.resolve(dataDir), 'app-db-password');
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/**
 * Creates the jtrace database and its owner role, a non-superuser: the application never holds
 * superuser rights (pg_read_file, COPY TO PROGRAM, ...), so an SQL injection or a stolen
 * connection cannot reach files or the OS. A database created by an earlier version (owned by
 * the superuser) is handed over with every table in it.
 */
async function ensureEmbeddedDatabase(serverUrl: string, dataDir: string): Promise<string> {
  const password = appPassword(dataDir);
  const client = new pg.Client(serverUrl);
  await client.connect();
  try {
    const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [EMBEDDED_APP_ROLE]);
    if (role.rowCount === 0) {
      await client.query(`CREATE ROLE ${EMBEDDED_APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS`).catch(ignore('42710'));
    }
    // The password file is the source of truth: set it on every start (cheap, and heals a copy).
    await client.query(`ALTER ROLE ${EMBEDDED_APP_ROLE} LOGIN NOSUPERUSER PASSWORD ${client.escapeLiteral(password)}`);
    const found = await client.query<{ owner: string }>(
      'SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1',
      [EMBEDDED_DATABASE],
    );
    if (found.rowCount === 0) {
      // Two processes starting at once: the other one created it.
      await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE} OWNER ${EMBEDDED_APP_ROLE}`).catch(ignore('42P04'));
    } else if (found.rows[0]!.owner !== EMBEDDED_APP_ROLE) {
      await handOver(serverUrl);
    }
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.username = EMBEDDED_APP_ROLE;
  url.password = password;
  url.pathname = `/${EMBEDDED_DATABASE}`;
  return url.toString();
}

function ignore(code: string) {
  return (error: { code?: string }) => {
    if (error.code !== code) throw error;
  };
}

/** Gives the database, its public schema objects and its extensions' use to the app role. */
async function handOver(serverUrl: string): Promise<void> {
  const url = new URL(serverUrl);
  url.pathname = `/${EMBEDDED_DATABASE}`;
  const client = new pg.Client(url.toString());
  await client.connect();
  try {
    await client.query(`ALTER DATABASE ${EMBEDDED_DATABASE} OWNER TO ${EMBEDDED_APP_ROLE}`);
    await client.query(`
      DO $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S', 'v', 'm') AND pg_get_userbyid(c.relowner) <> '${EMBEDDED_APP_ROLE}'
                    -- Partitioned tables and partitions carry automatic dependencies yet owners of their
                    -- own: the app role creates and drops day partitions of events (migration 0017).
                    AND (c.relkind = 'p' OR c.relispartition OR NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('e', 'a', 'i')))
        LOOP
          EXECUTE format('ALTER %s %s OWNER TO ${EMBEDDED_APP_ROLE}',
            CASE r.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, r.name);
        END LOOP;
      END $$`);
  } finally {
    await client.end();
  }
}
