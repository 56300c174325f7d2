// An erasure that meets a journey receiving an event while it runs: the journey is left (only
// what existed at the start is erased) and the answer says so, through the route and the CLI.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import type { PoolClient } from '../db/pool.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { erasureLeftMessage } from './erasure.ts';
import { admin, auditRows, ingest, journeyIds } from './test-fixtures.ts';

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

/**
 * Holds journey `journeyId` in an open transaction that adds one to its event count, as an
 * ingestion storing an event does; `commit` lets it go once the erasure waits for the row.
 */
async function eventArrivingFor(projectId: string, journeyId: string): Promise<{ commit: () => Promise<void> }> {
  const client: PoolClient = await db.pool.connect();
  await client.query('BEGIN');
  await client.query('UPDATE journeys SET event_count = event_count + 1 WHERE project_id = $1 AND id = $2', [projectId, journeyId]);
  return {
    commit: async () => {
      try {
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    },
  };
}

/** Resolves once some session waits for a row lock while deleting journeys. */
async function deletionWaitingForLock(): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    const waiting = await db.pool.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%DELETE FROM journeys%'`,
    );
    if (waiting.rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no deletion waited for the held journey');
}

async function seedMatches(slug: string, value: string): Promise<SeededProject> {
  const project = await seedProject(db.pool, keyring, slug);
  await ingest(app, project.apiKey, [
    { journeyId: `${slug}-busy`, entityId: value },
    { journeyId: `${slug}-quiet`, entityId: value },
  ]);
  return project;
}

describe('an erasure meeting a journey that receives an event', () => {
  it('POST /v1/erasures leaves it, answers complete with a message saying so, and a second run deletes it', async () => {
    const project = await seedMatches('race-http', 'race-person');
    const arriving = await eventArrivingFor(project.projectId, 'race-http-busy');
    const pending = app.inject({
      method: 'POST',
      url: '/v1/erasures',
      headers: { ...admin(project.projectId), 'content-type': 'application/json' },
      payload: JSON.stringify({ value: 'race-person' }),
    });
    await deletionWaitingForLock();
    await arriving.commit();
    const first = await pending;
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ data: { deletedJourneys: 1, deletedEvents: 1, complete: true, message: erasureLeftMessage(1) } });
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['race-http-busy']);

    const second = await app.inject({
      method: 'POST',
      url: '/v1/erasures',
      headers: { ...admin(project.projectId), 'content-type': 'application/json' },
      payload: JSON.stringify({ value: 'race-person' }),
    });
    expect(second.json()).toEqual({ data: { deletedJourneys: 1, deletedEvents: 2, complete: true } });
    expect(await journeyIds(db.pool, project.projectId)).toEqual([]);
    const rows = await auditRows(db.pool, project.projectId, 'erasure.completed');
    expect(rows.map((row) => [row.details.deletedJourneys, row.details.complete])).toEqual([
      [1, true],
      [1, true],
    ]);
  });

  it('delete:identifier prints the message and exits 1: not everything that matched was erased', async () => {
    const project = await seedMatches('race-cli', 'race-cli-person');
    const arriving = await eventArrivingFor(project.projectId, 'race-cli-busy');
    const pending = runTestCli(['delete:identifier', 'race-cli', 'race-cli-person'], { pool: db.pool, keyring });
    await deletionWaitingForLock();
    await arriving.commit();
    const result = await pending;
    expect(result.code).toBe(1);
    expect(result.err.join('\n')).toContain(`deleted 1 journeys (1 events); ${erasureLeftMessage(1)}`);
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['race-cli-busy']);
  });

  it('words the message for several journeys', () => {
    expect(erasureLeftMessage(3)).toBe('3 matching journeys received events while the erasure ran and were left in place. Run the same erasure again to delete them.');
  });
});
