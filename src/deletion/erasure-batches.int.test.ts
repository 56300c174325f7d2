import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { ERASURE_INCOMPLETE_MESSAGE, eraseIdentifier, erasureLeftMessage } from './erasure.ts';
import { admin, auditRows, ingest, journeyIds, type TestEvent } from './test-fixtures.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const deps = () => ({ pool: db.pool, keyring });
const cli = (argv: string[]) => runTestCli(argv, { pool: db.pool, keyring });

function journeysOf(prefix: string, value: string, count: number): TestEvent[] {
  const base = Date.parse('2026-02-01T00:00:00.000Z');
  return Array.from({ length: count }, (_, i) => ({
    journeyId: `${prefix}-${String(i).padStart(4, '0')}`,
    entityId: `${prefix}-entity-${i}`,
    aliases: { caseRef: value },
    timestamp: new Date(base + i * 60_000).toISOString(),
  }));
}

/** Makes deleting one journey fail, as a database error in the middle of a run would. */
async function failDeletionOf(journeyId: string | null): Promise<void> {
  await db.pool.query('DROP TRIGGER IF EXISTS fail_delete ON journeys');
  if (journeyId === null) return;
  await db.pool.query(`CREATE OR REPLACE FUNCTION fail_delete() RETURNS trigger LANGUAGE plpgsql AS
    $$ BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
  await db.pool.query(
    `CREATE TRIGGER fail_delete BEFORE DELETE ON journeys FOR EACH ROW WHEN (OLD.id = '${journeyId}') EXECUTE FUNCTION fail_delete()`,
  );
}

const post = (projectId: string, body: unknown) =>
  app.inject({ method: 'POST', url: '/v1/erasures', headers: { ...admin(projectId), 'content-type': 'application/json' }, payload: JSON.stringify(body) });

describe('erasure in batches of 500', () => {
  let bulk: SeededProject;
  const VALUE = 'bulk-case-7';

  beforeAll(async () => {
    bulk = await seedProject(db.pool, keyring, 'bulk');
    await ingest(app, bulk.apiKey, journeysOf('bulk', VALUE, 1001));
  });

  it('dry run lists 1,000 journeys, most recent first, and counts all 1,001', async () => {
    const data = (await post(bulk.projectId, { value: VALUE, dryRun: true })).json().data;
    expect(data.total).toBe(1001);
    expect(data.journeys).toHaveLength(1000);
    expect(data.journeys[0].id).toBe('bulk-1000');
    expect(data.journeys[999].id).toBe('bulk-0001');
  });

  it('answers 200 complete false when a later batch fails, and the row says so', async () => {
    // Batches follow journey id order: bulk-0600 is in the second batch.
    await failDeletionOf('bulk-0600');
    const response = await post(bulk.projectId, { value: VALUE });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: { deletedJourneys: 500, deletedEvents: 500, complete: false, message: ERASURE_INCOMPLETE_MESSAGE } });
    expect(response.body).not.toContain('refused for the test');
    expect(await journeyIds(db.pool, bulk.projectId)).toHaveLength(501);
    const rows = await auditRows(db.pool, bulk.projectId, 'erasure.completed');
    expect(rows.map((row) => row.details)).toEqual([expect.objectContaining({ deletedJourneys: 500, deletedEvents: 500, complete: false })]);
  });

  it('delete:identifier exits 1 when it stops part way, and a run that finishes writes a row of its own', async () => {
    // 501 remain; the last of them now sits in the CLI run's second batch.
    await failDeletionOf('bulk-1000');
    const stopped = await cli(['delete:identifier', 'bulk', VALUE]);
    expect(stopped.code).toBe(1);
    expect(stopped.err.join('\n')).toContain('deleted 500 journeys (500 events); The erasure stopped part way');
    await failDeletionOf(null);
    const finished = await cli(['delete:identifier', 'bulk', VALUE]);
    expect(finished.code).toBe(0);
    expect(finished.out).toEqual(['deleted 1 journeys (1 events)']);
    expect(await journeyIds(db.pool, bulk.projectId)).toEqual([]);
    const rows = await auditRows(db.pool, bulk.projectId, 'erasure.completed');
    expect(rows.map((row) => [row.details.deletedJourneys, row.details.complete])).toEqual([
      [500, false],
      [500, false],
      [1, true],
    ]);
  });

  it('a failure of the first batch deletes nothing, writes no row and is an error', async () => {
    const first = await seedProject(db.pool, keyring, 'bulk-first');
    await ingest(app, first.apiKey, journeysOf('first', 'first-case', 3));
    await failDeletionOf('first-0001');
    const response = await post(first.projectId, { value: 'first-case' });
    await failDeletionOf(null);
    expect(response.statusCode).toBe(500);
    expect(response.json().error.code).toBe('internal_error');
    expect(await journeyIds(db.pool, first.projectId)).toHaveLength(3);
    expect(await auditRows(db.pool, first.projectId, 'erasure.completed')).toEqual([]);
  });
});

describe('eraseIdentifier', () => {
  it('stops after a failed second batch with complete false; running it again finishes with its own row', async () => {
    const project = await seedProject(db.pool, keyring, 'hooked');
    await ingest(app, project.apiKey, journeysOf('hooked', 'hooked-case', 5));
    const seen: number[] = [];
    const failing = await eraseIdentifier(deps(), project.projectId, { value: 'hooked-case' }, {
      batchSize: 2,
      beforeBatch: async (index, client) => {
        seen.push(index);
        // Deletions run without a statement timeout (section 8).
        expect((await client.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('0');
        if (index === 1) throw new Error('batch 2 fails');
      },
    });
    expect(seen).toEqual([0, 1]);
    expect(failing).toEqual({ deletedJourneys: 2, deletedEvents: 2, complete: false, message: ERASURE_INCOMPLETE_MESSAGE });
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['hooked-0002', 'hooked-0003', 'hooked-0004']);

    const again = await eraseIdentifier(deps(), project.projectId, { value: 'hooked-case' }, { batchSize: 2 });
    expect(again).toEqual({ deletedJourneys: 3, deletedEvents: 3, complete: true });
    const rows = await auditRows(db.pool, project.projectId, 'erasure.completed');
    expect(rows.map((row) => [row.details.deletedJourneys, row.details.deletedEvents, row.details.complete])).toEqual([
      [2, 2, false],
      [3, 3, true],
    ]);
  });

  it('updates its row with every batch and sets complete on the last one', async () => {
    const project = await seedProject(db.pool, keyring, 'progress');
    await ingest(app, project.apiKey, journeysOf('progress', 'progress-case', 5));
    const progress: unknown[] = [];
    await eraseIdentifier(deps(), project.projectId, { value: 'progress-case' }, {
      batchSize: 2,
      beforeBatch: async () => {
        const rows = await auditRows(db.pool, project.projectId, 'erasure.completed');
        progress.push(rows.map((row) => [row.details.deletedJourneys, row.details.complete]));
      },
    });
    // Read from another connection, before each batch: the committed state so far.
    expect(progress).toEqual([[], [[2, false]], [[4, false]]]);
    const rows = await auditRows(db.pool, project.projectId, 'erasure.completed');
    expect(rows.map((row) => [row.details.deletedJourneys, row.details.complete])).toEqual([[5, true]]);
  });

  it('writes a complete row when nothing matches', async () => {
    const project = await seedProject(db.pool, keyring, 'nothing');
    expect(await eraseIdentifier(deps(), project.projectId, { value: 'no-match' })).toEqual({ deletedJourneys: 0, deletedEvents: 0, complete: true });
    const rows = await auditRows(db.pool, project.projectId, 'erasure.completed');
    expect(rows.map((row) => row.details)).toEqual([expect.objectContaining({ deletedJourneys: 0, deletedEvents: 0, complete: true })]);
  });

  it('leaves a journey that receives an event after the erasure started, and one created after it', async () => {
    const project = await seedProject(db.pool, keyring, 'moving');
    await ingest(app, project.apiKey, [
      { journeyId: 'moving-a', entityId: 'moving-person' },
      { journeyId: 'moving-b', entityId: 'moving-person' },
    ]);
    const result = await eraseIdentifier(deps(), project.projectId, { value: 'moving-person' }, {
      beforeBatch: async (index) => {
        if (index !== 0) return;
        // The run has read its journeys; the service keeps ingesting meanwhile.
        await ingest(app, project.apiKey, [
          { journeyId: 'moving-a', entityId: 'moving-person', timestamp: '2026-01-09T00:00:00.000Z' },
          { journeyId: 'moving-new', entityId: 'moving-person' },
        ]);
      },
    });
    // moving-a existed at the start but changed: left, and the answer says so; moving-new is not counted.
    expect(result).toEqual({ deletedJourneys: 1, deletedEvents: 1, complete: true, message: erasureLeftMessage(1) });
    expect(result.message).toBe('1 matching journey received events while the erasure ran and was left in place. Run the same erasure again to delete it.');
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['moving-a', 'moving-new']);
    const events = await db.pool.query('SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND journey_id = $2', [project.projectId, 'moving-a']);
    expect(events.rows[0].n).toBe(2);
  });
});
