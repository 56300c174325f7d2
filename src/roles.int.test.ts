import type { ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstanceRole } from './config/config.ts';
import { createKeyring } from './crypto/keyring.ts';
import { ADVISORY_LOCK_KEYS } from './db/advisory-lock.ts';
import { testEnvelope } from './ingest/test-fixtures.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.ts';
import { startServerProcess } from '../test/helpers/server-process.ts';

/**
 * JTRACE_ROLES: an instance serves only the routes of its roles (the rest answer 404 in the error
 * shape, so a proxy can route by path) and runs only the jobs of its roles.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let project: SeededProject;
const apps: FastifyInstance[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  project = await seedProject(db.pool, keyring, 'roles');
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(apps.map((app) => app.close()));
  await db.drop();
});

async function appWith(roles: InstanceRole[]): Promise<FastifyInstance> {
  const { app } = await buildTestApp(db.pool, { config: { roles } });
  apps.push(app);
  return app;
}

const batch = () => ({ events: [testEnvelope()] });

/** Status of each probe: ingestion, the read API, the interface's data route, the interface, the document. */
async function probe(app: FastifyInstance): Promise<Record<string, number>> {
  const key = bearer(project.apiKey);
  const answers = {
    health: await app.inject({ method: 'GET', url: '/health' }),
    ready: await app.inject({ method: 'GET', url: '/ready' }),
    event: await app.inject({ method: 'POST', url: '/v1/events', headers: key, payload: testEnvelope() }),
    batch: await app.inject({ method: 'POST', url: '/v1/events/batch', headers: key, payload: batch() }),
    journeys: await app.inject({ method: 'GET', url: '/v1/journeys?since=2026-01-01T00:00:00Z', headers: key }),
    projects: await app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(TEST_ADMIN_TOKEN) }),
    ui: await app.inject({ method: 'GET', url: '/ui/' }),
    openapi: await app.inject({ method: 'GET', url: '/v1/openapi.json' }),
  };
  for (const answer of Object.values(answers)) {
    if (answer.statusCode === 404) expect(answer.json()).toMatchObject({ error: { code: 'not_found' } });
  }
  return Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, answer.statusCode]));
}

describe('the routes an instance serves by its roles', () => {
  it('worker alone: health and readiness only', async () => {
    expect(await probe(await appWith(['worker']))).toEqual({
      health: 200, ready: 200, event: 404, batch: 404, journeys: 404, projects: 404, ui: 404, openapi: 404,
    });
  });

  it('ingest alone: the event routes, no reads, no interface', async () => {
    expect(await probe(await appWith(['ingest']))).toEqual({
      health: 200, ready: 200, event: 202, batch: 202, journeys: 404, projects: 404, ui: 404, openapi: 404,
    });
  });

  it('api alone: reads, settings and the interface, no ingestion', async () => {
    const answers = await probe(await appWith(['api']));
    expect(answers).toMatchObject({ health: 200, ready: 200, event: 404, batch: 404, journeys: 200, projects: 200, openapi: 200 });
    // No built interface in this test: the page answers 503, which still says the route is served.
    expect(answers.ui).not.toBe(404);
  });

  it('all three by default', async () => {
    const { app } = await buildTestApp(db.pool);
    apps.push(app);
    expect(await probe(app)).toMatchObject({ event: 202, batch: 202, journeys: 200, projects: 200, openapi: 200 });
  });
});

async function startServer(roles: string): Promise<ChildProcess> {
  const { child } = await startServerProcess({ DATABASE_URL: db.url, JTRACE_ROLES: roles });
  children.push(child);
  return child;
}

/** The job locks (findings analyzer, alert dispatcher) that jtrace servers hold in this database. */
async function jobLocks(): Promise<number[]> {
  const result = await db.pool.query<{ objid: number }>(
    `SELECT l.objid::int AS objid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND a.application_name = 'jtrace-server' AND l.objid = ANY($1)`,
    [[ADVISORY_LOCK_KEYS.findings, ADVISORY_LOCK_KEYS.alerts]],
  );
  return result.rows.map((row) => row.objid).sort();
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the jobs an instance runs by its roles', () => {
  it('api,ingest runs no background job; a worker instance on the same database takes them', async () => {
    await startServer('api,ingest');
    // The analyzer and the dispatcher take their locks within a second of starting: none came.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await jobLocks()).toEqual([]);
    await startServer('worker');
    const held = await eventually(jobLocks, (locks) => locks.length === 2, 20_000);
    expect(held).toEqual([ADVISORY_LOCK_KEYS.findings, ADVISORY_LOCK_KEYS.alerts].sort());
  }, 120_000);
});
