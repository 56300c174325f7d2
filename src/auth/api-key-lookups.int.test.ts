import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { createApiKeyLookups } from './api-key-lookups.ts';
import { createApiKey, revokeApiKeyByPrefix } from './api-key-service.ts';

/**
 * Ingestion's key lookups (src/auth/api-key-lookups.ts): a lookup starts at once when none runs;
 * those asked while one runs share the next statement, and each still reads the database as it
 * was after it was asked.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
const prefixes: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await seedProject(db.pool, keyring, 'lookups');
  for (const name of ['a', 'b', 'c']) {
    prefixes.push((await createApiKey(db.pool, keyring, { projectSlug: 'lookups', environmentName: `env-${name}`, name, defaultRetentionDays: 30 })).keyPrefix);
  }
});
afterAll(async () => {
  await db.drop();
});

describe('API-key lookups of concurrent ingestion requests', () => {
  it('share one statement while another runs, each request answered with its own key row', async () => {
    const statements: number[] = [];
    const lookups = createApiKeyLookups(db.pool, { statement: (n) => statements.push(n) });
    const asked = [prefixes[0]!, prefixes[1]!, prefixes[2]!, prefixes[1]!, 'unknownprefix'];
    const rows = await Promise.all(asked.map((prefix) => lookups.find(prefix)));
    // The first alone, at once; the four asked while it ran in one statement.
    expect(statements).toEqual([1, 4]);
    expect(rows.map((row) => row?.environmentName ?? null)).toEqual(['env-a', 'env-b', 'env-c', 'env-b', null]);
    expect(rows.map((row) => row?.prefix ?? null)).toEqual([...asked.slice(0, 4), null]);
  });

  it('see a key revoked before they were asked', async () => {
    const lookups = createApiKeyLookups(db.pool);
    expect((await lookups.find(prefixes[2]!))?.revoked).toBe(false);
    const running = lookups.find(prefixes[0]!);
    expect(await revokeApiKeyByPrefix(db.pool, prefixes[2]!)).toBe(true);
    // Asked after the revocation, while a statement of before it may still run: it waits for the next.
    const after = lookups.find(prefixes[2]!);
    await running;
    expect((await after)?.revoked).toBe(true);
  });
});
