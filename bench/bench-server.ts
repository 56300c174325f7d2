// The server every benchmark measures: its own embedded PostgreSQL (fsync on, default settings) in
// a temporary directory, migrated, the app built with buildApp on a real port, and a project
// `bench` with a `production` API key.

import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/api-key-service.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { createKeyring, type Keyring } from '../src/crypto/keyring.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { createProject } from '../src/projects/projects-sql.ts';
import { freePort } from '../test/helpers/free-port.ts';

export interface BenchServer {
  config: Config;
  pool: Pool;
  keyring: Keyring;
  baseUrl: string;
  projectId: string;
  apiKey: string;
  postgresVersion: string;
  /** Stops the API (the database stays up for measurements without it). */
  closeApp(): Promise<void>;
  /** Stops everything and removes the data directory. */
  stop(): Promise<void>;
}

/** A running PostgreSQL server to use instead of a fresh embedded one (bench/pg-cluster.ts). */
export interface OutsideDatabase {
  url: string;
  stop(): Promise<void>;
}

export async function startBenchServer(configOverrides: Partial<Config> = {}, database?: OutsideDatabase): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jtrace-bench-'));
  const embedded = database ?? (await startEmbeddedPostgres({ dataDir, port: await freePort() }));
  let pool: Pool | null = null;
  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  const closeApp = async () => {
    await app?.close();
    app = null;
  };
  const stop = async () => {
    await closeApp();
    await pool?.end();
    await embedded.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const admin = new pg.Client(embedded.url);
    await admin.connect();
    await admin.query('CREATE DATABASE jtrace_bench');
    const postgresVersion = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    await admin.end();
    const config = { ...loadConfig({}), ...configOverrides };
    const url = new URL(embedded.url);
    url.pathname = '/jtrace_bench';
    pool = createPool({ connectionString: url.toString(), max: config.poolMax, statementTimeoutMs: config.statementTimeoutMs, applicationName: 'jtrace-bench' });
    await migrate(pool);
    const keyring = createKeyring({ current: randomBytes(32).toString('base64url') });
    app = await buildApp({
      config, pool, keyring, adminToken: randomBytes(32).toString('base64url'), logger: pino({ level: 'silent' }),
      metrics: createMetrics(pool), build: { version: '0.0.0', source: 'package' },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const project = await createProject(pool, 'bench', 'Benchmark');
    const { apiKey } = await createApiKey(pool, keyring, { projectSlug: 'bench', environmentName: 'production', name: 'bench', defaultRetentionDays: 30 });
    return { config, pool, keyring, baseUrl, projectId: project.id, apiKey, postgresVersion, closeApp, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Runs a load job in a child process of `moduleUrl` (tsx's loader flags are inherited), so the
 * load never shares the server's event loop. The module answers with serveChildJob.
 */
export function runInChild<Job, Result>(moduleUrl: string, variable: string, job: Job): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(moduleUrl), [], { env: { ...process.env, [variable]: JSON.stringify(job) } });
    let result: Result | null = null;
    child.once('message', (message) => (result = message as Result));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`load process exited with ${code}`))));
  });
}

/** In a child started by runInChild: runs its job, sends the result and returns true; elsewhere false. */
export async function serveChildJob<Job, Result>(variable: string, run: (job: Job) => Promise<Result>): Promise<boolean> {
  const job = process.env[variable];
  if (job === undefined) return false;
  process.send!(await run(JSON.parse(job) as Job));
  process.disconnect();
  return true;
}
