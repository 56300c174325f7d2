import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { findEnvironment } from '../projects/environments-sql.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { RETENTION_LOCK_KEY } from './limits.ts';
import { parseDateRange } from './range-dates.ts';
import { deleteRange, type RangeScope } from './range-delete.ts';
import { startRetentionSweeper } from './retention-sweep.ts';
import { auditRows, ingest, killRetentionLockSession, journeyIds, keyFor, setLastEventAt } from './test-fixtures.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let counter = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const cli = (argv: string[]) => runTestCli(argv, { pool: db.pool, keyring });

/** A fresh project whose journeys' last events are at the given instants (set by SQL). */
async function projectWith(lastEvents: Record<string, string>): Promise<{ project: SeededProject; scope: RangeScope }> {
  const project = await seedProject(db.pool, keyring, `range-${++counter}`);
  const ids = Object.keys(lastEvents);
  await ingest(app, project.apiKey, ids.map((journeyId) => ({ journeyId, entityId: `entity-${journeyId}` })));
  for (const [id, at] of Object.entries(lastEvents)) await setLastEventAt(db.pool, project.projectId, [id], new Date(at));
  const environment = (await findEnvironment(db.pool, project.projectId, 'production'))!;
  return { project, scope: { projectId: project.projectId, environmentId: environment.id } };
}

const BOUNDARIES = {
  'r-old': '2025-01-01T00:00:00.000Z',
  'r-at-after': '2025-03-01T00:00:00.000Z',
  'r-inside': '2025-06-01T12:00:00.000Z',
  'r-before-minus': '2025-06-30T23:59:59.999Z',
  'r-at-before': '2025-07-01T00:00:00.000Z',
  'r-new': '2026-01-01T00:00:00.000Z',
};

describe('delete:range', () => {
  it('dry run lists the journeys in [after, before) and deletes nothing', async () => {
    const { project } = await projectWith(BOUNDARIES);
    const run = await cli(['delete:range', project.slug, 'production', '--after', '2025-03-01', '--before', '2025-07-01', '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.out[0]).toBe('would delete 3 journeys (nothing was deleted)');
    expect(run.out.slice(1).map((line) => line.split('\t')[0])).toEqual(['r-before-minus', 'r-inside', 'r-at-after']);
    expect(await journeyIds(db.pool, project.projectId)).toHaveLength(6);
    expect(await auditRows(db.pool, project.projectId, 'range.deleted')).toEqual([]);
  });

  it('deletes [after, before) of the named environment only, with a range.deleted row', async () => {
    const { project, scope } = await projectWith(BOUNDARIES);
    const stagingKey = await keyFor(db.pool, keyring, project.slug, 'staging');
    await ingest(app, stagingKey, [{ journeyId: 'r-staging', entityId: 'e', environment: 'staging' }]);
    await setLastEventAt(db.pool, project.projectId, ['r-staging'], new Date('2025-04-01T00:00:00Z'));

    const run = await cli(['delete:range', project.slug, 'production', '--after', '2025-03-01', '--before', '2025-07-01']);
    expect(run.code).toBe(0);
    expect(run.out).toEqual(['deleted 3 journeys (3 events) in 1 batches']);
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['r-at-before', 'r-new', 'r-old', 'r-staging']);
    const rows = await auditRows(db.pool, project.projectId, 'range.deleted');
    expect(rows.map((row) => row.details)).toEqual([
      {
        environmentId: scope.environmentId,
        after: '2025-03-01T00:00:00.000Z',
        before: '2025-07-01T00:00:00.000Z',
        deletedJourneys: 3,
        complete: true,
      },
    ]);
  });

  it('starts at the beginning of time without --after and reads offsets', async () => {
    const { project } = await projectWith(BOUNDARIES);
    const run = await cli(['delete:range', project.slug, 'production', '--before', '2025-03-01T02:00:00+02:00']);
    expect(run.code).toBe(0);
    expect(await journeyIds(db.pool, project.projectId)).not.toContain('r-old');
    expect(await journeyIds(db.pool, project.projectId)).toContain('r-at-after');
    const [row] = await auditRows(db.pool, project.projectId, 'range.deleted');
    expect(row!.details).toMatchObject({ after: null, before: '2025-03-01T00:00:00.000Z', deletedJourneys: 1, complete: true });
  });

  it('exits 1 for an invalid date, a timestamp without offset, --after not before --before, an unknown project or environment', async () => {
    const { project } = await projectWith({ 'r-x': '2025-01-01T00:00:00.000Z' });
    const base = ['delete:range', project.slug, 'production'];
    for (const argv of [
      [...base, '--before', '2025-02-30'],
      [...base, '--before', '2025-02-01T00:00:00'],
      [...base, '--before', '2025-02-01', '--after', '2025-02-01'],
      [...base, '--before', '2025-02-01', '--after', '2025-03-01'],
      ['delete:range', 'no-such-project', 'production', '--before', '2025-02-01'],
      ['delete:range', project.slug, 'nowhere', '--before', '2025-02-01'],
    ]) {
      expect((await cli(argv)).code, argv.join(' ')).toBe(1);
    }
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['r-x']);
  });

  it('exits 2 on usage errors', async () => {
    expect((await cli(['delete:range', 'p', 'production'])).code).toBe(2);
    expect((await cli(['delete:range', 'p', '--before', '2025-01-01'])).code).toBe(2);
    expect((await cli(['delete:range', 'p', 'production', 'extra', '--before', '2025-01-01'])).code).toBe(2);
    expect((await cli(['delete:range', 'p', 'production', '--before', '2025-01-01', '--before', '2025-02-01'])).code).toBe(2);
  });

  it('refuses while the sweep\'s lock is held, deleting nothing and writing no row', async () => {
    const { project } = await projectWith({ 'r-locked': '2025-01-01T00:00:00.000Z' });
    const holder = await db.pool.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [RETENTION_LOCK_KEY]);
      const run = await cli(['delete:range', project.slug, 'production', '--before', '2026-01-01']);
      expect(run.code).toBe(1);
      expect(run.err.join('\n')).toContain('holds the deletion lock; nothing was deleted');
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_KEY]);
      holder.release();
    }
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['r-locked']);
    expect(await auditRows(db.pool, project.projectId, 'range.deleted')).toEqual([]);
  });

  it('refuses while a retention sweep is running', async () => {
    const { project } = await projectWith({ 'r-swept': '2025-01-01T00:00:00.000Z' });
    // Long retention: the sweep finds nothing of this project to delete while it holds the lock.
    await db.pool.query('UPDATE environments SET retention_days = 36500');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inBatch = new Promise<void>((resolve) => (entered = resolve));
    const sweeper = startRetentionSweeper({
      pool: db.pool,
      logger: pino({ level: 'silent' }),
      metrics: createMetrics(),
      intervalMs: 3_600_000,
      beforeBatch: async (index) => {
        if (index === 0) {
          entered();
          await gate;
        }
      },
    });
    const sweep = sweeper.runOnce();
    await inBatch;
    const run = await cli(['delete:range', project.slug, 'production', '--before', '2026-01-01']);
    release();
    expect((await sweep).outcome).toBe('completed');
    await sweeper.stop();
    expect(run.code).toBe(1);
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['r-swept']);
    expect((await cli(['delete:range', project.slug, 'production', '--before', '2026-01-01'])).code).toBe(0);
  });
});

describe('deleteRange', () => {
  const range = parseDateRange('2026-01-01', undefined);
  const old = (ids: string[]) => Object.fromEntries(ids.map((id, i) => [id, `2025-0${i + 1}-01T00:00:00.000Z`]));

  it('deletes in bounded batches, updating its row, without statement timeout', async () => {
    const { project, scope } = await projectWith(old(['b-1', 'b-2', 'b-3', 'b-4']));
    const progress: unknown[] = [];
    const outcome = await deleteRange(db.pool, scope, range, {
      batchSize: 2,
      beforeBatch: async (_index, client) => {
        expect((await client.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('0');
        const rows = await auditRows(db.pool, project.projectId, 'range.deleted');
        progress.push(rows.map((row) => [row.details.deletedJourneys, row.details.complete]));
      },
    });
    expect(outcome).toEqual({ kind: 'ran', deletedJourneys: 4, deletedEvents: 4, batches: 3, complete: true, lockLost: false, errorType: null });
    expect(progress).toEqual([[], [[2, false]], [[4, false]]]);
    const rows = await auditRows(db.pool, project.projectId, 'range.deleted');
    expect(rows.map((row) => [row.details.deletedJourneys, row.details.complete])).toEqual([[4, true]]);
  });

  it('leaves journeys created after it started', async () => {
    const { project, scope } = await projectWith(old(['c-1', 'c-2']));
    const outcome = await deleteRange(db.pool, scope, range, {
      beforeBatch: async (index) => {
        if (index === 0) await ingest(app, project.apiKey, [{ journeyId: 'c-late', entityId: 'late', timestamp: '2025-05-01T00:00:00.000Z' }]);
      },
    });
    expect(outcome).toMatchObject({ deletedJourneys: 2, complete: true });
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['c-late']);
  });

  it('judges a journey changed while it waited by its new state, and goes on past it', async () => {
    const { project, scope } = await projectWith(old(['e-1', 'e-2', 'e-3', 'e-4']));
    // An ingestion holds e-1 and moves its last event out of the range while the run waits for it.
    const writer = await db.pool.connect();
    await writer.query('BEGIN');
    await writer.query(`UPDATE journeys SET last_event_at = '2026-06-01T00:00:00Z' WHERE project_id = $1 AND id = 'e-1'`, [project.projectId]);
    const running = deleteRange(db.pool, scope, range, { batchSize: 2 });
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const waiting = await db.pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`);
      if (waiting.rows[0].n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await writer.query('COMMIT');
    writer.release();
    // The first batch deleted one of its two candidates; the run did not take that for the end.
    expect(await running).toMatchObject({ deletedJourneys: 3, batches: 3, complete: true });
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['e-1']);
  });

  it('stops when its lock is lost between batches, and the row says lockLost', async () => {
    const { project, scope } = await projectWith(old(['l-1', 'l-2', 'l-3', 'l-4', 'l-5']));
    const outcome = await deleteRange(db.pool, scope, range, {
      batchSize: 2,
      beforeBatch: async (index) => {
        if (index !== 1) return;
        // An operator (or a failover) kills the session that holds the lock.
        await killRetentionLockSession(db.pool, RETENTION_LOCK_KEY);
      },
    });
    expect(outcome).toEqual({ kind: 'ran', deletedJourneys: 4, deletedEvents: 4, batches: 2, complete: false, lockLost: true, errorType: null });
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['l-5']);
    const rows = await auditRows(db.pool, project.projectId, 'range.deleted');
    expect(rows.map((row) => row.details)).toEqual([expect.objectContaining({ deletedJourneys: 4, complete: false, lockLost: true })]);
    // The lock is free again, and a new run finishes with a row of its own.
    expect(await deleteRange(db.pool, scope, range)).toMatchObject({ deletedJourneys: 1, complete: true });
    expect((await auditRows(db.pool, project.projectId, 'range.deleted')).map((row) => row.details.complete)).toEqual([false, true]);
  });

  it('stops part way when a later batch fails', async () => {
    const { project, scope } = await projectWith(old(['f-1', 'f-2', 'f-3']));
    const outcome = await deleteRange(db.pool, scope, range, {
      batchSize: 2,
      beforeBatch: async (index) => {
        if (index === 1) throw new TypeError('batch 2 fails');
      },
    });
    expect(outcome).toMatchObject({ deletedJourneys: 2, complete: false, lockLost: false, errorType: 'TypeError' });
    const rows = await auditRows(db.pool, project.projectId, 'range.deleted');
    expect(rows.map((row) => row.details)).toEqual([expect.objectContaining({ deletedJourneys: 2, complete: false })]);
    expect(rows[0]!.details).not.toHaveProperty('lockLost');
  });
});
