import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { KEY_A, KEYRING_A, cli, envelopes, ingestBatch, journeyFixture } from './test-rotation-kit.ts';
import { storedDataUnderOtherKeysOnly } from './key-mismatch.ts';

/**
 * A CLI run with another ENCRYPTION_KEY than the data's must refuse every command that reads or
 * writes keyed data (exit 1, naming ENCRYPTION_KEY) instead of reporting an empty success.
 */

const OTHER = createKeyring({ current: 'another-installations-key-0123456789abcdefghij' });
const OTHER_WITH_A = createKeyring({ current: 'another-installations-key-0123456789abcdefghij', previous: KEY_A });
const journey = journeyFixture();
const EMAIL = journey.aliases.email!;
let db: TestDatabase;
let project: SeededProject;

const count = async (sql: string) => Number((await db.pool.query<{ n: string }>(sql)).rows[0]!.n);

beforeAll(async () => {
  db = await createTestDatabase();
  expect(await storedDataUnderOtherKeysOnly(db.pool, OTHER)).toBe(false);
  // An empty database is no mismatch: the first key:create of an installation works under any key.
  const first = await cli(db.pool, OTHER, ['project:create', 'fresh', 'Fresh']);
  expect(first.status).toBe(0);
  expect((await cli(db.pool, OTHER, ['key:create', 'fresh', 'production', 'first'])).status).toBe(0);
  await db.pool.query("DELETE FROM projects WHERE slug = 'fresh'");

  const { app } = await buildTestApp(db.pool, { keyring: KEYRING_A });
  project = await seedProject(db.pool, KEYRING_A, 'acme');
  expect((await ingestBatch(app, project.apiKey, envelopes(journey))).status).toBe(202);
  await app.close();
});

afterAll(async () => {
  await db.drop();
});

describe('CLI commands under a key that wrote none of the stored data', () => {
  it.each<[string[]]>([
    [['delete:identifier', 'acme', EMAIL]],
    [['delete:identifier', 'acme', EMAIL, '--dry-run']],
    [['key:create', 'acme', 'production', 'new key']],
    [['rotate:status']],
    [['rotate:reencrypt']],
  ])('%o refuses with exit 1 naming ENCRYPTION_KEY and changes nothing', async (argv) => {
    const before = await count('SELECT (SELECT count(*) FROM journeys) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM audit_log) AS n');
    const run = await cli(db.pool, OTHER, argv);
    expect(run.status).toBe(1);
    expect(run.out).toEqual([]);
    expect(run.err.join('\n')).toContain('ENCRYPTION_KEY');
    expect(run.err.join('\n')).not.toContain(EMAIL);
    const after = await count('SELECT (SELECT count(*) FROM journeys) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM audit_log) AS n');
    expect(after).toBe(before);
  });

  it('refuses even when only API keys are stored (key:create would print a key the server refuses)', async () => {
    const only = await createTestDatabase();
    try {
      await seedProject(only.pool, KEYRING_A, 'solo');
      expect((await cli(only.pool, OTHER, ['key:create', 'solo', 'production', 'x'])).status).toBe(1);
      expect((await cli(only.pool, KEYRING_A, ['key:create', 'solo', 'production', 'x'])).status).toBe(0);
    } finally {
      await only.drop();
    }
  });

  it('commands without keyed data still run under that key', async () => {
    expect((await cli(db.pool, OTHER, ['project:list'])).status).toBe(0);
    expect((await cli(db.pool, OTHER, ['key:list'])).status).toBe(0);
  });

  it('runs once the data key is configured, as previous key too', async () => {
    expect((await cli(db.pool, KEYRING_A, ['delete:identifier', 'acme', EMAIL, '--dry-run'])).out[0]).toMatch(/^would delete 1 journey/);
    const status = await cli(db.pool, OTHER_WITH_A, ['rotate:status']);
    expect(status.err.join('\n')).not.toContain('none of it is under');
    expect(status.status).toBe(1);
  });
});
