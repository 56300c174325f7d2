import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { TEMPLATE_DATABASE, databaseUrl } from './database-url.ts';

export interface TestDatabase {
  url: string;
  name: string;
  pool: Pool;
  drop(): Promise<void>;
}

/** A fresh copy of the migrated template: each test file gets its own database. */
export async function createTestDatabase(options: { statementTimeoutMs?: number; poolMax?: number } = {}): Promise<TestDatabase> {
  const serverUrl = inject('serverUrl');
  const name = `jtrace_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(serverUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(serverUrl, name);
  const pool = createPool({ connectionString: url, max: options.poolMax ?? 10, statementTimeoutMs: options.statementTimeoutMs ?? 15_000 });
  return {
    url,
    name,
    pool,
    async drop() {
      await pool.end();
      const client = new pg.Client(serverUrl);
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** An empty database with no migrations applied, for migration tests. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const serverUrl = inject('serverUrl');
  const name = `jtrace_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(serverUrl);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = databaseUrl(serverUrl, name);
  const pool = createPool({ connectionString: url, max: 5, statementTimeoutMs: 0 });
  return {
    url,
    name,
    pool,
    async drop() {
      await pool.end();
      const client = new pg.Client(serverUrl);
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
