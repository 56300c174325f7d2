import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.ts';
import { createPool } from '../src/db/pool.ts';
import { migrate } from '../src/db/migrate.ts';
import { TEMPLATE_DATABASE, databaseUrl } from './helpers/database-url.ts';
import { freePort } from './helpers/free-port.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
  }
}


/**
 * One PostgreSQL for the whole run: TEST_DATABASE_URL when given, else an embedded cluster
 * with fsync off. A migrated template database is cloned by each test file.
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedDatabase | null = null;
  let dataDir: string | null = null;
  let serverUrl = process.env.TEST_DATABASE_URL?.trim() || '';
  if (serverUrl === '') {
    dataDir = mkdtempSync(path.join(tmpdir(), 'jtrace-test-'));
    embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), fsync: false });
    serverUrl = embedded.url;
  }
  const admin = new pg.Client(serverUrl);
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE}`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  const pool = createPool({ connectionString: databaseUrl(serverUrl, TEMPLATE_DATABASE), max: 2, statementTimeoutMs: 0 });
  await migrate(pool);
  await pool.end();
  project.provide('serverUrl', serverUrl);

  return async () => {
    if (embedded) await embedded.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
}
