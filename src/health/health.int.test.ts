import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { listMigrations, migrate, unlockMigrations } from '../db/migrate.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, testConfig } from '../../test/helpers/app.ts';
import type { BuildInfo } from './build-info.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});
afterAll(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function database(kind: 'migrated' | 'empty'): Promise<TestDatabase> {
  const db = kind === 'migrated' ? await createTestDatabase() : await createEmptyDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function testApp(pool: Pool): Promise<FastifyInstance> {
  const { app } = await buildTestApp(pool);
  cleanups.push(() => app.close());
  return app;
}

async function appWithBuild(pool: Pool, build: BuildInfo): Promise<FastifyInstance> {
  const app = await buildApp({
    config: testConfig(),
    pool,
    keyring: createKeyring({ current: TEST_ENCRYPTION_KEY }),
    adminToken: TEST_ADMIN_TOKEN,
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(pool),
    build,
  });
  await app.ready();
  cleanups.push(() => app.close());
  return app;
}

function closedPortPool(): Pool {
  const pool = createPool({ connectionString: 'postgres://x:y@127.0.0.1:1/none', max: 1, statementTimeoutMs: 0 });
  cleanups.push(() => pool.end());
  return pool;
}

describe('GET /health', () => {
  it('answers { status: "ok" } even when the database cannot be reached', async () => {
    const app = await testApp(closedPortPool());
    const response = await app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('does not touch the database and carries no version', async () => {
    const db = await database('migrated');
    const pool = createPool({ connectionString: db.url, max: 2, statementTimeoutMs: 0 });
    cleanups.push(() => pool.end());
    const app = await testApp(pool);
    for (let i = 0; i < 3; i++) {
      const response = await app.inject({ method: 'GET', url: '/health' });
      expect(response.json()).toEqual({ status: 'ok' });
    }
    expect(pool.totalCount).toBe(0);
  });

  it('needs no credential and ignores a wrong one', async () => {
    const app = await testApp(closedPortPool());
    for (const headers of [{}, bearer('wrong'), { authorization: 'garbage' }]) {
      const response = await app.inject({ method: 'GET', url: '/health', headers });
      expect(response.statusCode).toBe(200);
    }
  });
});

describe('GET /ready', () => {
  it('answers 200 { status: "ready", version, source } on a migrated database, without commit when none was recorded', async () => {
    const db = await database('migrated');
    const app = await testApp(db.pool);
    const response = await app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', version: '0.0.0', source: 'package' });
    expect('commit' in response.json()).toBe(false);
  });

  it('answers 503 not_ready migrations_pending on an empty database, with version and source', async () => {
    const db = await database('empty');
    const app = await testApp(db.pool);
    const response = await app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      status: 'not_ready',
      reason: 'migrations_pending',
      version: '0.0.0',
      source: 'package',
    });
  });

  it('stays not_ready when only the bookkeeping tables exist', async () => {
    const db = await database('empty');
    // unlockMigrations creates the bookkeeping tables and applies nothing.
    expect(await unlockMigrations(db.pool)).toBe(false);
    const app = await testApp(db.pool);
    const response = await app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 'not_ready', reason: 'migrations_pending' });
  });

  it('becomes ready once migrate() has run, without a restart', async () => {
    const db = await database('empty');
    const app = await testApp(db.pool);
    expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(503);
    const applied = await migrate(db.pool);
    expect(applied.map((m) => m.version)).toEqual(listMigrations().map((m) => m.version));
    const response = await app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', version: '0.0.0', source: 'package' });
  });

  it('answers 503 not_ready with version and source when the database cannot be reached', async () => {
    const app = await testApp(closedPortPool());
    const response = await app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(503);
    const body = response.json();
    expect(body.status).toBe('not_ready');
    expect(typeof body.reason).toBe('string');
    expect(body.reason).not.toBe('migrations_pending');
    expect(body.version).toBe('0.0.0');
    expect(body.source).toBe('package');
    // No connection detail leaks.
    expect(response.body).not.toContain('ECONNREFUSED');
    expect(response.body).not.toContain('127.0.0.1');
  });

  it('reports build info with a commit as commit', async () => {
    const db = await database('migrated');
    const app = await appWithBuild(db.pool, { version: '1.2.3', commit: 'abc', source: 'build' });
    const response = await app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', version: '1.2.3', commit: 'abc', source: 'build' });
  });

  it('reports version, commit and source on a 503 too', async () => {
    const db = await database('empty');
    const app = await appWithBuild(db.pool, { version: '1.2.3', commit: 'abc', source: 'build' });
    const response = await app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      status: 'not_ready',
      reason: 'migrations_pending',
      version: '1.2.3',
      commit: 'abc',
      source: 'build',
    });
  });

  it('omits commit for a build that recorded none', async () => {
    const db = await database('migrated');
    const app = await appWithBuild(db.pool, { version: '0.4.0', source: 'build' });
    const response = await app.inject({ method: 'GET', url: '/ready' });
    expect(response.json()).toEqual({ status: 'ready', version: '0.4.0', source: 'build' });
  });

  it('needs no credential and ignores a wrong one', async () => {
    const db = await database('migrated');
    const app = await testApp(db.pool);
    for (const headers of [{}, bearer('wrong'), { authorization: 'garbage' }]) {
      const response = await app.inject({ method: 'GET', url: '/ready', headers });
      expect(response.statusCode).toBe(200);
    }
  });
});
