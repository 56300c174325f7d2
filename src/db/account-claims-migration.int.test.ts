// Migration 0025 records which project's invitation made an account. For accounts of an earlier
// schema it reads that from the audit trails: an invitation wrote user.created and
// member.granted in one transaction (the same time), while user:create then user:grant wrote
// them in two. Links issued before it count as an owner's.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { listMigrations, migrate } from './migrate.ts';
import { withTransaction, type Pool, type Queryable } from './pool.ts';

const CLAIMS = 25;
let old: TestDatabase;

beforeAll(async () => {
  old = await createEmptyDatabase();
});
afterAll(async () => {
  await old.drop();
});

async function migrateBefore(pool: Pool, version: number): Promise<void> {
  await pool.query(`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const migration of listMigrations().filter((m) => m.version < version)) {
    await pool.query(migration.sql);
    await pool.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
  }
}

const actor = ['user', randomUUID(), 'admin@example.com'];

/** An account and its grant as the earlier code wrote them, in one transaction or two. */
async function account(pool: Pool, projectId: string, email: string, oneTransaction: boolean): Promise<string> {
  const id = randomUUID();
  const created = async (db: Queryable) => {
    await db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [id, email]);
    await db.query(
      `INSERT INTO account_audit_log (action, subject_user_id, details, actor_kind, actor_user_id, actor_email) VALUES ('user.created', $1, $2, $3, $4, $5)`,
      [id, JSON.stringify({ userId: id, email, owner: false }), ...actor],
    );
  };
  const granted = async (db: Queryable) => {
    await db.query(`INSERT INTO project_members (project_id, user_id, role) VALUES ($1, $2, 'viewer')`, [projectId, id]);
    await db.query(
      `INSERT INTO audit_log (project_id, action, details, actor_kind, actor_user_id, actor_email) VALUES ($1, 'member.granted', $2, $3, $4, $5)`,
      [projectId, JSON.stringify({ userId: id, email, role: 'viewer' }), ...actor],
    );
  };
  if (oneTransaction) {
    await withTransaction(pool, async (client) => {
      await created(client);
      await granted(client);
    });
  } else {
    await created(pool);
    await granted(pool);
  }
  return id;
}

describe('migration 0025', () => {
  it('marks accounts made by an invitation with its project, and leaves owner-made accounts and old links to owners', async () => {
    await migrateBefore(old.pool, CLAIMS);
    const projectId = randomUUID();
    await old.pool.query(`INSERT INTO projects (id, slug, name) VALUES ($1, 'claims', 'Claims')`, [projectId]);
    const invited = await account(old.pool, projectId, 'invited@example.com', true);
    const made = await account(old.pool, projectId, 'made@example.com', false);
    await old.pool.query(
      `INSERT INTO password_links (token_hash, user_id, purpose, created_at, expires_at) VALUES ($1, $2, 'invitation', now(), now() + interval '72 hours')`,
      ['a'.repeat(64), invited],
    );

    const applied = await migrate(old.pool);
    expect(applied.map((m) => m.version)).toContain(CLAIMS);
    const users = await old.pool.query<{ id: string; invited_into: string | null }>('SELECT id, invited_into FROM users ORDER BY email');
    expect(users.rows).toEqual([
      { id: invited, invited_into: projectId },
      { id: made, invited_into: null },
    ]);
    expect((await old.pool.query('SELECT issued_by_project FROM password_links')).rows).toEqual([{ issued_by_project: null }]);
  });
});
