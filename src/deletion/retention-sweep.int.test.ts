import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { createMetrics, type Metrics } from '../metrics/metrics.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { RETENTION_LOCK_KEY } from './limits.ts';
import { startRetentionSweeper, type RetentionSweeper, type RetentionSweeperDeps } from './retention-sweep.ts';
import { ingest, journeyIds, killRetentionLockSession, keyFor, setLastEventAt } from './test-fixtures.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const NOW = Date.parse('2026-03-01T00:00:00.000Z');
const DAY = 86_400_000;
let db: TestDatabase;
let app: FastifyInstance;
let counter = 0;
const sweepers: RetentionSweeper[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
});
afterAll(async () => {
  await Promise.all(sweepers.map((sweeper) => sweeper.stop()));
  await app.close();
  await db.drop();
});
beforeEach(async () => {
  // Each test sees only its own journeys: earlier projects go.
  await db.pool.query('DELETE FROM projects');
});

interface Harness {
  sweeper: RetentionSweeper;
  metrics: Metrics;
  logs: Array<Record<string, unknown>>;
}

function sweeperOn(pool: Pool, options: Partial<RetentionSweeperDeps> = {}): Harness {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const metrics = createMetrics();
  const sweeper = startRetentionSweeper({ pool, logger, metrics, intervalMs: 3_600_000, now: () => NOW, ...options });
  sweepers.push(sweeper);
  return { sweeper, metrics, logs };
}

async function runs(metrics: Metrics): Promise<Record<string, number>> {
  const values = (await metrics.retentionRuns.get()).values;
  return Object.fromEntries(values.map((value) => [String(value.labels.outcome), value.value]));
}

/** A project whose production journeys last saw an event `ages` days before NOW. */
async function expired(ages: Record<string, number>, retentionDays = 30) {
  const project = await seedProject(db.pool, keyring, `sweep-${++counter}`);
  await db.pool.query('UPDATE environments SET retention_days = $2 WHERE project_id = $1', [project.projectId, retentionDays]);
  await ingest(app, project.apiKey, Object.keys(ages).map((journeyId) => ({ journeyId, entityId: `entity-${journeyId}` })));
  for (const days of new Set(Object.values(ages))) {
    const ids = Object.keys(ages).filter((id) => ages[id] === days);
    await setLastEventAt(db.pool, project.projectId, ids, new Date(NOW - days * DAY));
  }
  return project;
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let reached!: () => void;
  const wasReached = new Promise<void>((resolve) => (reached = resolve));
  return { open, opened, reached, wasReached };
}

describe('retention sweep', () => {
  it("deletes each environment's journeys older than its own retention, and counts and logs it", async () => {
    const project = await expired({ 'p-old': 45, 'p-edge': 30, 'p-young': 19 });
    const stagingKey = await keyFor(db.pool, keyring, project.slug, 'staging', 7);
    await ingest(app, stagingKey, [
      { journeyId: 's-old', entityId: 'a', environment: 'staging' },
      { journeyId: 's-young', entityId: 'b', environment: 'staging' },
    ]);
    await setLastEventAt(db.pool, project.projectId, ['s-old'], new Date(NOW - 14 * DAY));
    await setLastEventAt(db.pool, project.projectId, ['s-young'], new Date(NOW - 4 * DAY));

    const { sweeper, metrics, logs } = sweeperOn(db.pool);
    const result = await sweeper.runOnce();
    expect(result).toMatchObject({ outcome: 'completed', journeysDeleted: 2, batches: 2, environmentsExamined: 2 });
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['p-edge', 'p-young', 's-young']);
    expect(await runs(metrics)).toEqual({ completed: 1, locked: 0, stopped_early: 0, failed: 0 });
    expect((await metrics.retentionDeleted.get()).values[0]!.value).toBe(2);
    expect((await metrics.retentionLastSuccess.get()).values[0]!.value).toBe(NOW / 1000);
    const line = logs.find((entry) => entry.msg === 'retention sweep')!;
    expect(line).toMatchObject({ journeysDeleted: 2, batches: 2, environmentsExamined: 2 });
    expect(typeof line.durationMs).toBe('number');
  });

  it('works in batches of 500 without statement timeout, and logs nothing when nothing was deleted', async () => {
    const ages = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`bulk-${String(i).padStart(4, '0')}`, 40]));
    await expired(ages);
    const timeouts = new Set<string>();
    const { sweeper, logs } = sweeperOn(db.pool, {
      beforeBatch: async (_index, client) => void timeouts.add((await client.query('SHOW statement_timeout')).rows[0].statement_timeout),
    });
    expect(await sweeper.runOnce()).toMatchObject({ outcome: 'completed', journeysDeleted: 1001, batches: 3 });
    expect([...timeouts]).toEqual(['0']);
    expect(await sweeper.runOnce()).toMatchObject({ outcome: 'completed', journeysDeleted: 0, batches: 1 });
    expect(logs.filter((entry) => entry.msg === 'retention sweep')).toHaveLength(1);
  });

  it('two sweepers on two pools never sweep at the same time', async () => {
    const project = await expired({ 'two-1': 40, 'two-2': 40, 'two-3': 40 });
    const otherPool = createPool({ connectionString: db.url, max: 3, statementTimeoutMs: 15_000 });
    try {
      const pause = gate();
      const first = sweeperOn(db.pool, {
        batchSize: 1,
        beforeBatch: async (index) => {
          if (index !== 0) return;
          pause.reached();
          await pause.opened;
        },
      });
      const second = sweeperOn(otherPool);

      // Held by another process (here: the test): both are refused.
      const holder = await otherPool.connect();
      await holder.query('SELECT pg_advisory_lock($1)', [RETENTION_LOCK_KEY]);
      expect((await first.sweeper.runOnce()).outcome).toBe('locked');
      expect((await second.sweeper.runOnce()).outcome).toBe('locked');
      await holder.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_KEY]);
      holder.release();
      expect(await journeyIds(db.pool, project.projectId)).toHaveLength(3);

      // The first sweeper is inside a batch: the second one, on its own pool, gets `locked`.
      const running = first.sweeper.runOnce();
      await pause.wasReached;
      expect(await second.sweeper.runOnce()).toMatchObject({ outcome: 'locked', journeysDeleted: 0 });
      pause.open();
      expect(await running).toMatchObject({ outcome: 'completed', journeysDeleted: 3 });
      expect(await runs(first.metrics)).toMatchObject({ locked: 1, completed: 1 });
      expect(await runs(second.metrics)).toMatchObject({ locked: 2, completed: 0 });
      // Released at the end: the second one may now sweep.
      expect((await second.sweeper.runOnce()).outcome).toBe('completed');
    } finally {
      await otherPool.end();
    }
  });

  it('stop() waits for the current batch and the run ends stopped_early', async () => {
    const project = await expired({ 'stop-1': 40, 'stop-2': 40, 'stop-3': 40 });
    const pause = gate();
    const { sweeper, metrics } = sweeperOn(db.pool, {
      batchSize: 1,
      beforeBatch: async (index) => {
        if (index !== 0) return;
        pause.reached();
        await pause.opened;
      },
    });
    const running = sweeper.runOnce();
    await pause.wasReached;
    let stopped = false;
    const stopping = sweeper.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    pause.open();
    await stopping;
    expect(await running).toMatchObject({ outcome: 'stopped_early', journeysDeleted: 1, batches: 1 });
    expect(await journeyIds(db.pool, project.projectId)).toHaveLength(2);
    expect(await runs(metrics)).toMatchObject({ stopped_early: 1, completed: 0 });
    // Nothing starts after stop().
    await sweeper.runOnce();
    expect(await journeyIds(db.pool, project.projectId)).toHaveLength(2);
    expect(await runs(metrics)).toMatchObject({ stopped_early: 1 });
  });

  it('counts a failed sweep, logs only the error class and releases the lock', async () => {
    await expired({ 'fail-1': 40 });
    const { sweeper, metrics, logs } = sweeperOn(db.pool, {
      beforeBatch: async () => {
        throw new RangeError('secret-looking text 4111111111111111');
      },
    });
    expect((await sweeper.runOnce()).outcome).toBe('failed');
    expect(await runs(metrics)).toMatchObject({ failed: 1 });
    expect((await metrics.retentionLastSuccess.get()).values[0]?.value ?? 0).toBe(0);
    const line = logs.find((entry) => entry.msg === 'retention sweep failed')!;
    expect(line.err).toEqual({ type: 'RangeError' });
    expect(JSON.stringify(logs)).not.toContain('4111');
    expect((await sweeperOn(db.pool).sweeper.runOnce()).outcome).toBe('completed');
  });

  it('fails when its lock is lost between batches', async () => {
    const project = await expired({ 'lost-1': 40, 'lost-2': 40 });
    const { sweeper } = sweeperOn(db.pool, {
      batchSize: 1,
      beforeBatch: async (index) => {
        if (index === 0) {
          await killRetentionLockSession(db.pool, RETENTION_LOCK_KEY);
        }
      },
    });
    expect(await sweeper.runOnce()).toMatchObject({ outcome: 'failed', journeysDeleted: 1 });
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['lost-2']);
  });

  it('runs by itself every interval until stopped', async () => {
    await expired({ 'timer-1': 40 });
    const { sweeper, metrics } = sweeperOn(db.pool, { intervalMs: 30, firstRunDelayMs: 5 });
    const deadline = Date.now() + 5_000;
    while ((await runs(metrics)).completed! < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await sweeper.stop();
    const after = (await runs(metrics)).completed!;
    expect(after).toBeGreaterThanOrEqual(2);
    expect((await metrics.retentionDeleted.get()).values[0]!.value).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await runs(metrics)).completed).toBe(after);
  });
});
