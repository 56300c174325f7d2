// AUDIT_RETENTION_DAYS: the retention sweep also ages out audit, settings-history and account
// rows, in batches, and keeps every row when the setting is 0.
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { TEST_ENCRYPTION_KEY, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { startRetentionSweeper, type RetentionSweeper } from './retention-sweep.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const NOW = Date.parse('2026-03-01T00:00:00.000Z');
const DAY = 86_400_000;
let db: TestDatabase;
let project: SeededProject;
const sweepers: RetentionSweeper[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  project = await seedProject(db.pool, keyring, 'trail');
});
afterAll(async () => {
  await Promise.all(sweepers.map((sweeper) => sweeper.stop()));
  await db.drop();
});
beforeEach(async () => {
  for (const table of ['audit_log', 'settings_changes', 'account_audit_log']) await db.pool.query(`DELETE FROM ${table}`);
});

/** One row in each trail per age, in days before NOW. */
async function rowsAged(ages: number[]): Promise<void> {
  for (const days of ages) {
    const at = new Date(NOW - days * DAY);
    await db.pool.query(
      `INSERT INTO audit_log (project_id, action, details, actor_kind, created_at, updated_at) VALUES ($1, 'api_key.created', $2, 'cli', $3, $3)`,
      [project.projectId, JSON.stringify({ keyPrefix: `k${days}` }), at],
    );
    await db.pool.query(
      `INSERT INTO settings_changes (project_id, action, subject, before, after, actor_kind, created_at) VALUES ($1, 'environment.updated', 'production', '{}', '{}', 'cli', $2)`,
      [project.projectId, at],
    );
    await db.pool.query(`INSERT INTO account_audit_log (action, details, actor_kind, created_at) VALUES ('user.created', '{}', 'cli', $1)`, [at]);
  }
}

async function counts(): Promise<number[]> {
  const out: number[] = [];
  for (const table of ['audit_log', 'settings_changes', 'account_audit_log']) {
    out.push((await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n);
  }
  return out;
}

function sweeper(auditRetentionDays: number | undefined) {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const started = startRetentionSweeper({
    pool: db.pool, logger, metrics: createMetrics(), intervalMs: 3_600_000, now: () => NOW, batchSize: 2,
    ...(auditRetentionDays === undefined ? {} : { auditRetentionDays }),
  });
  sweepers.push(started);
  return { sweeper: started, logs };
}

describe('AUDIT_RETENTION_DAYS in the retention sweep', () => {
  it('deletes rows of every trail older than the setting, in batches, and logs the count', async () => {
    await rowsAged([400, 380, 366, 364, 10]);
    const { sweeper: sweep, logs } = sweeper(365);
    const result = await sweep.runOnce();
    expect(result).toMatchObject({ outcome: 'completed', auditRowsDeleted: 9 });
    expect(await counts()).toEqual([2, 2, 2]);
    expect(logs.find((line) => line.msg === 'retention sweep')).toMatchObject({ auditRowsDeleted: 9 });
    expect((await sweep.runOnce()).auditRowsDeleted).toBe(0);
  });

  it('keeps every row with 0 or without the setting', async () => {
    await rowsAged([4000, 400]);
    expect((await sweeper(0).sweeper.runOnce())).toMatchObject({ outcome: 'completed', auditRowsDeleted: 0 });
    expect((await sweeper(undefined).sweeper.runOnce()).auditRowsDeleted).toBe(0);
    expect(await counts()).toEqual([2, 2, 2]);
  });
});
