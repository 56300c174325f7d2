import { appendFileSync, chmodSync, copyFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPool } from '../../src/db/pool.ts';
import { freePort } from './free-port.ts';

export interface StreamingPair {
  /** The jtrace database on the primary and on the standby (superuser URLs). */
  primaryUrl: string;
  standbyUrl: string;
  /** Runs a statement on the standby as superuser (pg_wal_replay_pause() and the like). */
  onStandby(sql: string): Promise<void>;
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  stop(): Promise<void>;
}

const DATABASE = 'jtrace_replica_test';

/**
 * A primary with a migrated database and a real streaming standby of it, on free loopback ports in
 * a temporary folder: the standby is a copy of the primary's data taken while the primary was
 * stopped cleanly (a consistent base), started with standby.signal and primary_conninfo.
 */
export async function startStreamingPair(): Promise<StreamingPair> {
  const root = mkdtempSync(path.join(tmpdir(), 'jtrace-replica-'));
  // Run as root, the clusters belong to the postgres OS user, who must be able to reach them.
  chmodSync(root, 0o711);
  const started: EmbeddedDatabase[] = [];
  try {
    return await startPair(root, started);
  } catch (error) {
    // Nothing is left running or on disk when the set-up fails half-way.
    for (const cluster of started) await cluster.stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

async function startPair(root: string, started: EmbeddedDatabase[]): Promise<StreamingPair> {
  const primaryDir = path.join(root, 'primary');
  const standbyDir = path.join(root, 'standby');
  const primaryPort = await freePort();
  let primary: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: primaryDir, port: primaryPort });
  started.push(primary);
  const admin = new pg.Client(primary.url);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const primaryUrl = withDatabase(primary.url);
  const pool = createPool({ connectionString: primaryUrl, max: 2, statementTimeoutMs: 0 });
  await migrate(pool);
  await pool.end();
  await primary.stop();

  cpSync(path.join(primaryDir, 'pg'), path.join(standbyDir, 'pg'), { recursive: true });
  copyFileSync(path.join(primaryDir, 'db-password'), path.join(standbyDir, 'db-password'));
  const password = new URL(primary.url).password;
  writeFileSync(path.join(standbyDir, 'pg', 'standby.signal'), '');
  appendFileSync(
    path.join(standbyDir, 'pg', 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=jtrace password=${decodeURIComponent(password)} application_name=standby'\n`,
  );
  primary = await startEmbeddedPostgres({ dataDir: primaryDir, port: primaryPort });
  started.push(primary);
  const standbyPort = await freePort();
  let standby: EmbeddedDatabase | null = null;
  const startStandby = async () => {
    standby = await startEmbeddedPostgres({ dataDir: standbyDir, port: standbyPort });
    started.push(standby);
  };
  await startStandby();
  const standbyUrl = withDatabase(standby!.url);
  const stopStandby = async () => {
    await standby?.stop();
    standby = null;
  };
  return {
    primaryUrl,
    standbyUrl,
    async onStandby(sql) {
      const client = new pg.Client(standbyUrl);
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    },
    stopStandby,
    startStandby,
    async stop() {
      await stopStandby();
      await primary.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function withDatabase(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${DATABASE}`;
  return url.toString();
}
