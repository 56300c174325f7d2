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

async function createDatabase(template: string | null): Promise<{ serverUrl: string; name: string; url: string }> {
  const serverUrl = inject('serverUrl');
  const name = `jtrace_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(serverUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  return { serverUrl, name, url: databaseUrl(serverUrl, name) };
}

function testDatabase(serverUrl: string, name: string, url: string, pool: Pool): TestDatabase {
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

/** A fresh copy of the migrated template: each test file gets its own database. */
export async function createTestDatabase(options: { statementTimeoutMs?: number; poolMax?: number } = {}): Promise<TestDatabase> {
  const { serverUrl, name, url } = await createDatabase(TEMPLATE_DATABASE);
  const pool = createPool({ connectionString: url, max: options.poolMax ?? 10, statementTimeoutMs: options.statementTimeoutMs ?? 15_000 });
  return testDatabase(serverUrl, name, url, pool);
}

/** An empty database with no migrations applied, for migration tests. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const { serverUrl, name, url } = await createDatabase(null);
  return testDatabase(serverUrl, name, url, createPool({ connectionString: url, max: 5, statementTimeoutMs: 0 }));
}

export interface ApplicationRole {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

/**
 * A login role without superuser rights that may read and write the test database's tables, as
 * docs/operations.md tells an installation to connect ("The application role").
 */
export async function createApplicationRole(db: TestDatabase): Promise<ApplicationRole> {
  const role = `jtrace_app_${randomBytes(6).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  await db.pool.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${password}'`);
  await db.pool.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
  await db.pool.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
  const url = new URL(db.url);
  url.username = role;
  url.password = password;
  const pool = createPool({ connectionString: url.toString(), max: 3, statementTimeoutMs: 15_000 });
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      await db.pool.query(`DROP OWNED BY ${role}`);
      await db.pool.query(`DROP ROLE ${role}`);
    },
  };
}
