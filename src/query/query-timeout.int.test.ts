import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../db/pool.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { TEST_ADMIN_TOKEN, buildTestApp } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { createProject } from '../projects/projects-sql.ts';
import { keyring } from './test-fixtures.ts';

/**
 * A statement cancelled by statement_timeout is 503 query_timeout and counted in
 * service_query_timeouts_total under the route pattern. The app gets its own pool whose every
 * connection carries a 1 ms timeout, and enough journeys that no list statement finishes in it.
 */
let db: TestDatabase;
let slowPool: Pool;
let app: FastifyInstance;
let metrics: Metrics;
let projectId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  projectId = (await createProject(db.pool, 'slow', 'Slow')).id;
  await db.pool.query(`INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, gen_random_uuid(), 'production', 30)`, [projectId]);
  // The seed is not under test: on a busy machine it may outlast the pool's statement timeout.
  const seeder = await db.pool.connect();
  try {
    await seeder.query('BEGIN');
    await seeder.query('SET LOCAL statement_timeout = 0');
    await seeder.query(
      `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, started_at, last_event_at, label)
       SELECT $1, 'jrn-' || n, (SELECT id FROM environments WHERE project_id = $1), 'order', 'x',
              now() - n * interval '1 second', now() - n * interval '1 second', 'label ' || n
         FROM generate_series(1, 200000) AS n`,
      [projectId],
    );
    await seeder.query('ANALYZE journeys');
    await seeder.query('COMMIT');
  } finally {
    seeder.release();
  }
  slowPool = createPool({ connectionString: db.url, max: 2, statementTimeoutMs: 1 });
  const built = await buildTestApp(slowPool, { keyring });
  app = built.app;
  metrics = built.deps.metrics;
});
afterAll(async () => {
  await app.close();
  await slowPool.end();
  await db.drop();
});

describe('statement timeout on the read routes', () => {
  it('answers 503 query_timeout and counts it under the route', async () => {
    // Every trigram of q is in every label ('label n') but no label holds q: whatever the plan
    // (trigram index and recheck, or a walk of the window), every row of the window is read.
    const response = await app.inject({
      method: 'GET',
      url: '/v1/journeys?since=2000-01-01T00:00:00Z&q=abelabel',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': projectId },
    });
    expect(response.statusCode).toBe(503);
    const body = response.json();
    expect(body.error.code).toBe('query_timeout');
    // PostgreSQL's own text never reaches the client.
    expect(body.error.message).not.toContain('canceling statement');
    const counted = await metrics.queryTimeouts.get();
    expect(counted.values).toEqual([{ labels: { route: '/v1/journeys' }, value: 1 }]);
  });
});
