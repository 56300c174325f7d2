import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp, seedProject } from '../../test/helpers/app.ts';

let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  const built = await buildTestApp(db.pool);
  app = built.app;
  await seedProject(db.pool, built.deps.keyring, 'acme');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

describe('common HTTP rules', () => {
  it('answers an unknown route with not_found naming method and path but not the query', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/nothing?secret=abc' });
    expect(response.statusCode).toBe(404);
    const body = response.json();
    expect(body.error.code).toBe('not_found');
    expect(body.error.message).toContain('GET /v1/nothing');
    expect(body.error.message).not.toContain('secret');
    expect(body.error.requestId).toBe(response.headers['x-request-id']);
  });

  it('refuses malformed percent-encoding in the query with bad_url', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/projects?x=%E0%A4%A' , headers: bearer(TEST_ADMIN_TOKEN)});
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('bad_url');
  });

  it('refuses malformed percent-encoding in a path parameter with bad_url', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/journeys/%E0%A4%A' });
    expect([400, 404]).toContain(response.statusCode);
  });

  it('answers /health without touching the database', async () => {
    const response = await app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers /ready with version and source', async () => {
    const response = await app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', version: '0.0.0', source: 'package' });
  });

  it('lists projects for the admin token', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/projects', headers: bearer(TEST_ADMIN_TOKEN) });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.items).toEqual([
      { id: expect.any(String), name: 'Project acme', slug: 'acme', environments: ['production'] },
    ]);
  });
});
