import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, bearer, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { SAME_ORIGIN, clock, expectError, seedWithEvents, signIn, webApp } from './test-kit.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

let db: TestDatabase;
let app: FastifyInstance;
let cookie: string;
let project: SeededProject;

const event = (id: string, journeyId: string, minutes: number, extra: Record<string, unknown> = {}) => ({
  id,
  journeyId,
  timestamp: new Date(NOW - minutes * 60_000).toISOString(),
  service: 'crm',
  entity: { type: 'contact', id: `contact-${journeyId}` },
  operation: 'persisted',
  name: 'persist-contact',
  aliases: { email: `${journeyId}@example.com` },
  ...extra,
});

beforeAll(async () => {
  db = await createTestDatabase();
  app = await webApp(db, { now: clock(NOW).now });
  project = await seedWithEvents(app, db, 'acme', [
    event('e-1', 'j-1', 30),
    event('e-2', 'j-1', 20, { error: { message: 'CRM refused' } }),
    event('e-3', 'j-2', 10),
  ]);
  cookie = await signIn(app);
});

afterAll(async () => {
  await app.close();
  await db.drop();
});

/** Every route the interface uses, with a request that reaches its handler. */
const ROUTES = [
  { method: 'GET' as const, url: '/v1/projects' },
  { method: 'GET' as const, url: '/v1/search?q=contact-j-1' },
  { method: 'GET' as const, url: '/v1/journeys?since=2026-02-01T00:00:00.000Z' },
  { method: 'GET' as const, url: '/v1/journeys/j-1' },
  { method: 'GET' as const, url: '/v1/journeys/j-1/events' },
  { method: 'GET' as const, url: '/v1/events/e-1' },
  { method: 'GET' as const, url: '/v1/journeys/j-1/fields?path=customer' },
  { method: 'GET' as const, url: '/v1/journeys/j-1/changes' },
  { method: 'GET' as const, url: '/v1/journeys/compare?a=j-1&b=j-2' },
  { method: 'GET' as const, url: '/v1/replay-destinations' },
  { method: 'POST' as const, url: '/v1/replay-destinations', payload: {} },
  { method: 'POST' as const, url: '/v1/replays', payload: {} },
  { method: 'GET' as const, url: '/v1/replays/00000000-0000-4000-8000-000000000000' },
  { method: 'DELETE' as const, url: '/v1/journeys/j-404' },
];

describe('/ui/api data routes', () => {
  it('refuse every request without a valid session with 401, whatever Authorization says', async () => {
    for (const route of ROUTES) {
      for (const headers of [SAME_ORIGIN, { ...SAME_ORIGIN, ...bearer(TEST_ADMIN_TOKEN) }, { ...SAME_ORIGIN, cookie: 'jtrace_session=forged' }]) {
        const response = await app.inject({ ...route, url: `/ui/api${route.url}`, headers });
        expectError(response, 401, 'unauthorized');
        expect(response.headers['cache-control']).toBe('no-store');
      }
    }
  });

  it('answer exactly what /v1 answers to the admin token', async () => {
    const projectHeader = { 'x-service-project-id': project.projectId };
    for (const route of ROUTES) {
      const viaApi = await app.inject({ ...route, headers: { ...bearer(TEST_ADMIN_TOKEN), ...projectHeader } });
      const viaUi = await app.inject({ ...route, url: `/ui/api${route.url}`, headers: { cookie, ...SAME_ORIGIN, ...projectHeader } });
      expect(viaUi.statusCode, route.url).toBe(viaApi.statusCode);
      const strip = (body: string) => body.replace(/"requestId":"[^"]+"/, '');
      expect(strip(viaUi.body), route.url).toBe(strip(viaApi.body));
      expect(viaUi.headers['cache-control']).toBe('no-store');
    }
  });

  it('select the project with x-service-project-id, as the admin token does', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/ui/api/v1/journeys/j-1',
      headers: { cookie, 'x-service-project-id': '00000000-0000-4000-8000-000000000000' },
    });
    expectError(response, 404, 'project_not_found');
    const sole = await app.inject({ method: 'GET', url: '/ui/api/v1/journeys/j-1', headers: { cookie } });
    expect(sole.statusCode).toBe(200);
    expect(sole.json().data.journeyId).toBe('j-1');
  });

  it('delete a journey with the session and the right Origin', async () => {
    const response = await app.inject({ method: 'DELETE', url: '/ui/api/v1/journeys/j-2', headers: { cookie, ...SAME_ORIGIN } });
    expect(response.statusCode).toBe(204);
    const gone = await app.inject({ method: 'GET', url: '/v1/journeys/j-2', headers: bearer(TEST_ADMIN_TOKEN) });
    expectError(gone, 404, 'not_found');
  });

  it('keep the query-string rules of /v1', async () => {
    const response = await app.inject({ method: 'GET', url: '/ui/api/v1/journeys?since=2026-02-01T00:00:00.000Z&bogus=1', headers: { cookie } });
    expectError(response, 400, 'invalid_query');
  });

  it('answer 404 in the error shape for an unknown route', async () => {
    expectError(await app.inject({ method: 'GET', url: '/ui/api/v1/nothing-here', headers: { cookie } }), 404, 'not_found');
  });
});
