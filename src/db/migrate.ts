import { readdirSync, readFileSync } from 'node:fs';
import { ADVISORY_LOCK_KEYS } from './advisory-lock.ts';
import os from 'node:os';
import type { Pool, Queryable } from './pool.ts';
import { withTransaction } from './pool.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const FILE_PATTERN = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** Serialises creation of the bookkeeping tables between concurrent migrators. */
const BOOTSTRAP_LOCK_KEY = ADVISORY_LOCK_KEYS.migrations;

export class MigrationLockedError extends Error {
  constructor() {
    super('another migration holds the migration lock; if no migration is running, release it with: jtrace migrate:unlock');
  }
}

/** Migrations shipped with this build, in order. */
export function listMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => FILE_PATTERN.test(file))
    .sort()
    .map((file) => {
      const match = FILE_PATTERN.exec(file)!;
      return {
        version: Number(match[1]),
        name: match[2]!,
        sql: readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8'),
      };
    });
}

export function latestVersion(): number {
  return listMigrations().at(-1)?.version ?? 0;
}

async function ensureBookkeeping(pool: Pool): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    // A row lock survives a crashed migrator on purpose: a half-applied upgrade needs a person.
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations_lock (
      id integer PRIMARY KEY CHECK (id = 1), locked boolean NOT NULL, locked_at timestamptz, locked_by text)`);
    await client.query(`INSERT INTO schema_migrations_lock (id, locked) VALUES (1, false) ON CONFLICT (id) DO NOTHING`);
  });
}

/** Applied versions, or [] when the database has never been migrated. */
export async function appliedVersions(db: Queryable): Promise<number[]> {
  const exists = await db.query<{ present: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  if (!exists.rows[0]?.present) return [];
  const result = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return result.rows.map((row) => row.version);
}

export async function pendingMigrations(db: Queryable): Promise<Migration[]> {
  const applied = new Set(await appliedVersions(db));
  return listMigrations().filter((migration) => !applied.has(migration.version));
}

/** Applies every pending migration, each in its own transaction, under the migration lock. */
export async function migrate(pool: Pool): Promise<Migration[]> {
  await ensureBookkeeping(pool);
  const taken = await pool.query(
    `UPDATE schema_migrations_lock SET locked = true, locked_at = now(), locked_by = $1
      WHERE id = 1 AND NOT locked`,
    [`${os.hostname()}:${process.pid}`],
  );
  if (taken.rowCount !== 1) throw new MigrationLockedError();
  const done: Migration[] = [];
  try {
    for (const migration of await pendingMigrations(pool)) {
      await withTransaction(pool, async (client) => {
        // Schema changes may take longer than an API statement is allowed to.
        await client.query('SET LOCAL statement_timeout = 0');
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
      });
      done.push(migration);
    }
  } finally {
    await pool.query('UPDATE schema_migrations_lock SET locked = false, locked_at = NULL, locked_by = NULL WHERE id = 1');
  }
  return done;
}

/** Releases a lock left by a migrator that died. Returns whether a lock was held. */
export async function unlockMigrations(pool: Pool): Promise<boolean> {
  await ensureBookkeeping(pool);
  const result = await pool.query(
    'UPDATE schema_migrations_lock SET locked = false, locked_at = NULL, locked_by = NULL WHERE id = 1 AND locked',
  );
  return result.rowCount === 1;
}
