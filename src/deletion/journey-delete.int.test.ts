import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { addReplayRuns, admin, auditRows, countTree, ingest, journeyIds } from './test-fixtures.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let alpha: SeededProject;
let beta: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  alpha = await seedProject(db.pool, keyring, 'alpha');
  beta = await seedProject(db.pool, keyring, 'beta');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const del = (journeyId: string, headers: Record<string, string>) =>
  app.inject({ method: 'DELETE', url: `/v1/journeys/${encodeURIComponent(journeyId)}`, headers });

describe('DELETE /v1/journeys/:journeyId', () => {
  it('deletes the journey, its events, aliases, tokens and replay runs, with a journey.deleted row', async () => {
    await ingest(app, alpha.apiKey, [
      { journeyId: 'jrn-full', entityId: 'cust-1', aliases: { email: 'one@example.com' } },
      { journeyId: 'jrn-full', entityId: 'cust-1', timestamp: '2026-01-10T11:00:00.000Z' },
      { journeyId: 'jrn-keep', entityId: 'cust-2' },
    ]);
    expect(await addReplayRuns(db.pool, alpha.projectId, 'jrn-full')).toBe(2);
    expect(await countTree(db.pool, alpha.projectId, 'jrn-full')).toMatchObject({ journeys: 1, events: 2, aliases: 1, replayRuns: 2 });

    const response = await del('jrn-full', admin(alpha.projectId));
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(await countTree(db.pool, alpha.projectId, 'jrn-full')).toEqual({ journeys: 0, events: 0, aliases: 0, tokens: 0, replayRuns: 0 });
    expect(await journeyIds(db.pool, alpha.projectId)).toContain('jrn-keep');

    const rows = await auditRows(db.pool, alpha.projectId, 'journey.deleted');
    expect(rows.map((row) => row.details)).toEqual([{ journeyId: 'jrn-full', environment: 'production', eventCount: 2 }]);
    expect(JSON.stringify(rows)).not.toMatch(/cust-1|one@example\.com/);
  });

  it('answers 404 not_found for an unknown journey and for another project\'s journey', async () => {
    await ingest(app, beta.apiKey, [{ journeyId: 'jrn-beta', entityId: 'cust-b' }]);
    for (const id of ['no-such-journey', 'jrn-beta', 'x'.repeat(128)]) {
      const response = await del(id, admin(alpha.projectId));
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
    expect(await journeyIds(db.pool, beta.projectId)).toEqual(['jrn-beta']);
  });

  it('refuses a NUL or an id over 128 characters with 400 invalid_request, and over 1,152 encoded with 414', async () => {
    for (const url of ['/v1/journeys/a%00b', `/v1/journeys/${'x'.repeat(129)}`, `/v1/journeys/${'é'.repeat(129)}`]) {
      const response = await app.inject({ method: 'DELETE', url, headers: admin(alpha.projectId) });
      expect(response.statusCode, url.slice(0, 40)).toBe(400);
      expect(response.json().error.code).toBe('invalid_request');
    }
    const long = await app.inject({ method: 'DELETE', url: `/v1/journeys/${'x'.repeat(1153)}`, headers: admin(alpha.projectId) });
    expect(long.statusCode).toBe(414);
  });

  it('refuses an API key with 401 and deletes nothing', async () => {
    await ingest(app, alpha.apiKey, [{ journeyId: 'jrn-key', entityId: 'cust-3' }]);
    const response = await del('jrn-key', bearer(alpha.apiKey));
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('unauthorized');
    expect(await journeyIds(db.pool, alpha.projectId)).toContain('jrn-key');
  });

  it('answers project_not_found without a project header when several projects exist, or for an unknown project', async () => {
    for (const headers of [bearer(TEST_ADMIN_TOKEN), admin('not-a-uuid'), admin('00000000-0000-4000-8000-000000000000')]) {
      const response = await del('jrn-key', headers);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('project_not_found');
    }
  });

  it('lifts the statement timeout for the deletion', async () => {
    // A trigger makes this one deletion slower than the pool's timeout; reads still time out.
    await db.pool.query(`CREATE FUNCTION slow_delete() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN PERFORM pg_sleep(0.3); RETURN OLD; END $$`);
    await db.pool.query(`CREATE TRIGGER slow_delete BEFORE DELETE ON journeys FOR EACH ROW
      WHEN (OLD.id = 'jrn-slow') EXECUTE FUNCTION slow_delete()`);
    const tightPool: Pool = createPool({ connectionString: db.url, max: 3, statementTimeoutMs: 100 });
    try {
      await expect(tightPool.query('SELECT pg_sleep(0.3)')).rejects.toMatchObject({ code: '57014' });
      const tightApp = (await buildTestApp(tightPool, { keyring })).app;
      await ingest(tightApp, alpha.apiKey, [{ journeyId: 'jrn-slow', entityId: 'cust-4' }]);
      const response = await tightApp.inject({ method: 'DELETE', url: '/v1/journeys/jrn-slow', headers: admin(alpha.projectId) });
      expect(response.statusCode).toBe(204);
      await tightApp.close();
    } finally {
      await tightPool.end();
      await db.pool.query('DROP TRIGGER slow_delete ON journeys');
    }
  });
});

describe('delete:journey', () => {
  const cli = (argv: string[]) => runTestCli(argv, { pool: db.pool, keyring });

  it('deletes a journey with its audit row and exits 0', async () => {
    await ingest(app, alpha.apiKey, [{ journeyId: 'jrn-cli', entityId: 'cust-5' }]);
    const run = await cli(['delete:journey', 'alpha', 'jrn-cli']);
    expect(run.code).toBe(0);
    expect(run.out.join('\n')).toContain('deleted journey jrn-cli from production (1 events)');
    expect(await journeyIds(db.pool, alpha.projectId)).not.toContain('jrn-cli');
    const rows = await auditRows(db.pool, alpha.projectId, 'journey.deleted');
    expect(rows.at(-1)!.details).toEqual({ journeyId: 'jrn-cli', environment: 'production', eventCount: 1 });
  });

  it('exits 1 for an unknown project, an unknown journey or an over-long id', async () => {
    expect((await cli(['delete:journey', 'no-such-project', 'jrn-key'])).code).toBe(1);
    expect((await cli(['delete:journey', 'beta', 'jrn-key'])).code).toBe(1);
    expect((await cli(['delete:journey', 'alpha', 'x'.repeat(129)])).code).toBe(1);
    expect(await journeyIds(db.pool, alpha.projectId)).toContain('jrn-key');
  });

  it('exits 2 on a usage error and runs nothing on --help', async () => {
    expect((await cli(['delete:journey', 'alpha'])).code).toBe(2);
    expect((await cli(['delete:journey', 'alpha', 'jrn-key', 'extra'])).code).toBe(2);
    expect((await cli(['delete:journey', 'alpha', 'jrn-key', '--help'])).code).toBe(0);
    expect(await journeyIds(db.pool, alpha.projectId)).toContain('jrn-key');
  });
});
