import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import {
  MigrationLockedError,
  appliedVersions,
  latestVersion,
  listMigrations,
  migrate,
  pendingMigrations,
  unlockMigrations,
  type Migration,
} from './migrate.ts';
import { createPool, type Pool } from './pool.ts';

const FOREIGN_KEY_VIOLATION = '23503';
const CHECK_VIOLATION = '23514';

const EXPECTED_TABLES = [
  'account_audit_log',
  'alert_deliveries',
  'alert_outbox',
  'alert_rules',
  'api_keys',
  'audit_log',
  'environments',
  'event_ids',
  'events',
  'expectations',
  'journey_aliases',
  'journey_analysis',
  'journey_findings',
  'journey_findings_pending',
  'journeys',
  'key_successions',
  'loose_search_tokens',
  'loose_token_backfill',
  'password_links',
  'personal_tokens',
  'problem_journeys',
  'problem_replay_results',
  'problem_replays',
  'problems',
  'project_members',
  'project_releases',
  'projects',
  'replay_destinations',
  'replay_runs',
  'schema_migrations',
  'schema_migrations_lock',
  'search_tokens',
  'settings_changes',
  'sign_in_throttle',
  'user_sessions',
  'users',
  'web_session_revocations',
];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function emptyDatabase(): Promise<TestDatabase> {
  const db = await createEmptyDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function tables(pool: Pool): Promise<string[]> {
  const result = await pool.query<{ table_name: string }>(
    // The partitions of events are its storage, not tables of their own.
    `SELECT table_name FROM information_schema.tables t
      WHERE table_schema = 'public'
        AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = to_regclass(quote_ident(t.table_name)) AND c.relispartition)
      ORDER BY table_name`,
  );
  return result.rows.map((row) => row.table_name);
}

async function migrationRows(pool: Pool): Promise<Array<{ version: number; name: string; applied_at: Date }>> {
  const result = await pool.query<{ version: number; name: string; applied_at: Date }>(
    'SELECT version, name, applied_at FROM schema_migrations ORDER BY version',
  );
  return result.rows;
}

async function lockState(pool: Pool): Promise<{ locked: boolean; locked_at: Date | null; locked_by: string | null }> {
  const result = await pool.query<{ locked: boolean; locked_at: Date | null; locked_by: string | null }>(
    'SELECT locked, locked_at, locked_by FROM schema_migrations_lock WHERE id = 1',
  );
  return result.rows[0]!;
}

describe('listMigrations', () => {
  it('lists the shipped files in order with unique versions', () => {
    const migrations = listMigrations();
    expect(migrations.length).toBeGreaterThan(0);
    const versions = migrations.map((m) => m.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(latestVersion()).toBe(versions.at(-1));
    expect(migrations[0]).toMatchObject({ version: 1, name: 'create_schema' });
  });
});

describe('migrate', () => {
  it('applies every file once; a second run applies nothing', async () => {
    const db = await emptyDatabase();
    expect(await appliedVersions(db.pool)).toEqual([]);
    expect((await pendingMigrations(db.pool)).map((m) => m.version)).toEqual(listMigrations().map((m) => m.version));

    const first = await migrate(db.pool);
    expect(first.map((m) => [m.version, m.name])).toEqual(listMigrations().map((m) => [m.version, m.name]));
    const rows = await migrationRows(db.pool);
    expect(rows.map((r) => [r.version, r.name])).toEqual(listMigrations().map((m) => [m.version, m.name]));
    expect(await tables(db.pool)).toEqual(EXPECTED_TABLES);
    expect(await pendingMigrations(db.pool)).toEqual([]);

    const second = await migrate(db.pool);
    expect(second).toEqual([]);
    // Nothing was re-applied: the bookkeeping rows are the very same.
    expect(await migrationRows(db.pool)).toEqual(rows);
    expect((await lockState(db.pool)).locked).toBe(false);
  });

  it('releases the lock after a run', async () => {
    const db = await emptyDatabase();
    await migrate(db.pool);
    expect(await lockState(db.pool)).toEqual({ locked: false, locked_at: null, locked_by: null });
  });

  it('finds the template database (migrated by the test setup) up to date', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    expect(await appliedVersions(db.pool)).toEqual(listMigrations().map((m) => m.version));
    expect(await migrate(db.pool)).toEqual([]);
  });

  it('two concurrent migrate() calls on one empty database never both apply', async () => {
    for (let round = 0; round < 3; round++) {
      const db = await emptyDatabase();
      // Two pools: two processes, each with its own connections.
      const other = createPool({ connectionString: db.url, max: 5, statementTimeoutMs: 0 });
      cleanups.push(() => other.end());
      const results = await Promise.allSettled([migrate(db.pool), migrate(other)]);

      const applied: Migration[][] = [];
      for (const result of results) {
        if (result.status === 'fulfilled') applied.push(result.value);
        else expect(result.reason).toBeInstanceOf(MigrationLockedError);
      }
      // At least one call succeeded, and between them each migration was applied exactly once.
      expect(applied.length).toBeGreaterThan(0);
      const versions = applied.flat().map((m) => m.version);
      expect(versions.sort((a, b) => a - b)).toEqual(listMigrations().map((m) => m.version));
      expect(applied.filter((list) => list.length > 0)).toHaveLength(1);

      expect((await migrationRows(db.pool)).map((r) => r.version)).toEqual(listMigrations().map((m) => m.version));
      expect(await tables(db.pool)).toEqual(EXPECTED_TABLES);
      expect((await lockState(db.pool)).locked).toBe(false);
      await other.end();
      cleanups.pop();
      await cleanups.pop()!();
    }
  });

  it('a stale lock makes migrate throw MigrationLockedError; unlockMigrations releases it once', async () => {
    const db = await emptyDatabase();
    await migrate(db.pool);
    await db.pool.query(
      `UPDATE schema_migrations_lock SET locked = true, locked_at = now(), locked_by = 'dead-host:1234' WHERE id = 1`,
    );
    await expect(migrate(db.pool)).rejects.toBeInstanceOf(MigrationLockedError);
    await expect(migrate(db.pool)).rejects.toThrow(/migrate:unlock/);
    // A refused run does not release somebody else's lock.
    expect(await lockState(db.pool)).toMatchObject({ locked: true, locked_by: 'dead-host:1234' });

    expect(await unlockMigrations(db.pool)).toBe(true);
    expect(await lockState(db.pool)).toEqual({ locked: false, locked_at: null, locked_by: null });
    expect(await unlockMigrations(db.pool)).toBe(false);
    expect(await migrate(db.pool)).toEqual([]);
  });

  it('a stale lock on a never-migrated database stops migrate before anything is applied', async () => {
    const db = await emptyDatabase();
    // Creates the bookkeeping tables only.
    expect(await unlockMigrations(db.pool)).toBe(false);
    await db.pool.query('UPDATE schema_migrations_lock SET locked = true WHERE id = 1');
    await expect(migrate(db.pool)).rejects.toBeInstanceOf(MigrationLockedError);
    expect(await appliedVersions(db.pool)).toEqual([]);
    expect(await tables(db.pool)).toEqual(['schema_migrations', 'schema_migrations_lock']);
    expect(await unlockMigrations(db.pool)).toBe(true);
    expect((await migrate(db.pool)).length).toBe(listMigrations().length);
  });
});

describe('schema invariants', () => {
  let db: TestDatabase;
  let projectA: string;
  let projectB: string;
  let envA: string;
  let envA2: string;
  let envB: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    projectA = randomUUID();
    projectB = randomUUID();
    envA = randomUUID();
    envA2 = randomUUID();
    envB = randomUUID();
    await db.pool.query(`INSERT INTO projects (id, slug, name) VALUES ($1, 'proj-a', 'A'), ($2, 'proj-b', 'B')`, [
      projectA,
      projectB,
    ]);
    await db.pool.query(
      `INSERT INTO environments (project_id, id, name, retention_days)
       VALUES ($1, $2, 'production', 30), ($1, $3, 'staging', 30), ($4, $5, 'production', 30)`,
      [projectA, envA, envA2, projectB, envB],
    );
  });
  afterAll(async () => {
    await db.drop();
  });

  async function insertJourney(projectId: string, environmentId: string, id: string, status = 'active', failedStep: string | null = null) {
    await db.pool.query(
      `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, status, failed_step,
                             started_at, last_event_at)
       VALUES ($1, $2, $3, 'order', 'enc', $4, $5, now(), now())`,
      [projectId, id, environmentId, status, failedStep],
    );
  }

  function insertEvent(projectId: string, journeyId: string, environmentId: string, id: string) {
    return db.pool.query(
      `WITH ids AS (INSERT INTO event_ids (project_id, id, journey_id, received_at) VALUES ($1, $2, $3, now()))
       INSERT INTO events (project_id, id, journey_id, environment_id, operation, name, service, event_timestamp,
                           received_at, has_input, has_output, has_error, content_hash, content_hash_key_id)
       VALUES ($1, $2, $3, $4, 'received', 'order.received', 'api', now(), now(), false, false, false, 'hash', 'k1')`,
      [projectId, id, journeyId, environmentId],
    );
  }

  async function count(table: string, projectId: string, journeyId: string): Promise<number> {
    const result = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1 AND journey_id = $2`,
      [projectId, journeyId],
    );
    return result.rows[0]!.n;
  }

  it('refuses an event whose journey belongs to another project (foreign key)', async () => {
    await insertJourney(projectA, envA, 'journey-of-a');
    // Project B, pointing at project A's journey id (with B's environment or A's).
    await expect(insertEvent(projectB, 'journey-of-a', envB, 'evt-cross-1')).rejects.toMatchObject({ code: FOREIGN_KEY_VIOLATION });
    await expect(insertEvent(projectB, 'journey-of-a', envA, 'evt-cross-2')).rejects.toMatchObject({ code: FOREIGN_KEY_VIOLATION });
    // The same insert in the right project is accepted.
    await insertEvent(projectA, 'journey-of-a', envA, 'evt-ok');
  });

  it("refuses an event in another environment than its journey's", async () => {
    await insertJourney(projectA, envA, 'journey-env');
    await expect(insertEvent(projectA, 'journey-env', envA2, 'evt-env')).rejects.toMatchObject({ code: FOREIGN_KEY_VIOLATION });
  });

  it("refuses a journey in another project's environment", async () => {
    await expect(insertJourney(projectA, envB, 'journey-cross-env')).rejects.toMatchObject({ code: FOREIGN_KEY_VIOLATION });
  });

  it('refuses an alias or search token pointing at another project\'s journey', async () => {
    await insertJourney(projectA, envA, 'journey-alias-cross');
    await expect(
      db.pool.query(
        `INSERT INTO journey_aliases (project_id, journey_id, alias_type, value_encrypted, token, token_key_id, displayable)
         VALUES ($1, 'journey-alias-cross', 'email', 'enc', 'tok', 'k1', false)`,
        [projectB],
      ),
    ).rejects.toMatchObject({ code: FOREIGN_KEY_VIOLATION });
    await expect(
      db.pool.query(
        `INSERT INTO search_tokens (project_id, token, journey_id, kind, key_id) VALUES ($1, 'tok', 'journey-alias-cross', 'alias', 'k1')`,
        [projectB],
      ),
    ).rejects.toMatchObject({ code: FOREIGN_KEY_VIOLATION });
  });

  it('refuses a failed_step on a journey whose status is not failed (CHECK)', async () => {
    await expect(insertJourney(projectA, envA, 'journey-check-active', 'active', 'charge')).rejects.toMatchObject({
      code: CHECK_VIOLATION,
    });
    await expect(insertJourney(projectA, envA, 'journey-check-completed', 'completed', 'charge')).rejects.toMatchObject({
      code: CHECK_VIOLATION,
    });
    await insertJourney(projectA, envA, 'journey-check-failed', 'failed', 'charge');
    // Nor can an update leave a failed_step behind.
    await expect(
      db.pool.query(`UPDATE journeys SET status = 'active' WHERE project_id = $1 AND id = 'journey-check-failed'`, [projectA]),
    ).rejects.toMatchObject({ code: CHECK_VIOLATION });
  });

  it('deleting a journey cascades to its events, aliases, search tokens and replay runs only', async () => {
    for (const id of ['journey-doomed', 'journey-kept']) {
      await insertJourney(projectA, envA, id);
      await insertEvent(projectA, id, envA, `${id}-evt-1`);
      await insertEvent(projectA, id, envA, `${id}-evt-2`);
      await db.pool.query(
        `INSERT INTO journey_aliases (project_id, journey_id, alias_type, value_encrypted, token, token_key_id, displayable)
         VALUES ($1, $2, 'email', 'enc', $3, 'k1', false), ($1, $2, 'phone', 'enc', $4, 'k1', false)`,
        [projectA, id, `${id}-tok-email`, `${id}-tok-phone`],
      );
      await db.pool.query(
        `INSERT INTO search_tokens (project_id, token, journey_id, kind, key_id)
         VALUES ($1, $3, $2, 'alias', 'k1'), ($1, $4, $2, 'entity_id', 'k1')`,
        [projectA, id, `${id}-tok-email`, `${id}-tok-entity`],
      );
    }
    const destination = randomUUID();
    await db.pool.query(
      `INSERT INTO replay_destinations (project_id, id, name, base_url, environment_type, headers_encrypted)
       VALUES ($1, $2, 'local', 'http://localhost:9999', 'local', 'enc')`,
      [projectA, destination],
    );
    for (const eventId of ['journey-doomed-evt-1', 'journey-kept-evt-1']) {
      await db.pool.query(
        `INSERT INTO replay_runs (project_id, id, event_id, destination_id, method, path, status)
         VALUES ($1, $2, $3, $4, 'POST', '/orders', 'completed')`,
        [projectA, randomUUID(), eventId, destination],
      );
    }
    await db.pool.query(`INSERT INTO audit_log (project_id, action, details) VALUES ($1, 'journey.deleted', '{}')`, [
      projectA,
    ]);

    expect(await count('events', projectA, 'journey-doomed')).toBe(2);
    expect(await count('journey_aliases', projectA, 'journey-doomed')).toBe(2);
    expect(await count('search_tokens', projectA, 'journey-doomed')).toBe(2);

    const deleted = await db.pool.query(`DELETE FROM journeys WHERE project_id = $1 AND id = 'journey-doomed'`, [projectA]);
    expect(deleted.rowCount).toBe(1);

    expect(await count('events', projectA, 'journey-doomed')).toBe(0);
    expect(await count('journey_aliases', projectA, 'journey-doomed')).toBe(0);
    expect(await count('search_tokens', projectA, 'journey-doomed')).toBe(0);
    const runs = await db.pool.query<{ event_id: string }>('SELECT event_id FROM replay_runs WHERE project_id = $1', [projectA]);
    expect(runs.rows.map((r) => r.event_id)).toEqual(['journey-kept-evt-1']);

    // The other journey, the destination and the audit row are untouched.
    expect(await count('events', projectA, 'journey-kept')).toBe(2);
    expect(await count('journey_aliases', projectA, 'journey-kept')).toBe(2);
    expect(await count('search_tokens', projectA, 'journey-kept')).toBe(2);
    const destinations = await db.pool.query('SELECT 1 FROM replay_destinations WHERE project_id = $1 AND id = $2', [
      projectA,
      destination,
    ]);
    expect(destinations.rowCount).toBe(1);
    const audit = await db.pool.query(`SELECT 1 FROM audit_log WHERE project_id = $1 AND action = 'journey.deleted'`, [projectA]);
    expect(audit.rowCount).toBe(1);
  });
});
