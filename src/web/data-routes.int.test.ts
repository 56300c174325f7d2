import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, bearer, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { SAME_ORIGIN, clock, expectError, seedWithEvents, signIn, webApp } from './test-kit.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const HOUR_AGO = new Date(NOW - 3_600_000).toISOString();

let db: TestDatabase;
let app: FastifyInstance;
let cookie: string;
let project: SeededProject;
let destinationId: string;

const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();
const event = (id: string, journeyId: string, minutes: number, extra: Record<string, unknown> = {}) => ({
  id,
  journeyId,
  timestamp: minutesAgo(minutes),
  service: 'crm',
  entity: { type: 'contact', id: `contact-${journeyId}` },
  operation: 'persisted',
  name: 'persist-contact',
  ...extra,
});

beforeAll(async () => {
  db = await createTestDatabase();
  app = await webApp(db, { now: clock(NOW).now, config: { replayAllowedHosts: ['crm.example'] } });
  project = await seedWithEvents(app, db, 'acme', [
    event('a-1', 'ja', 55, { journeyLabel: 'Alpha contact' }),
    event('b-1', 'jb', 50, { error: { message: 'CRM refused' } }),
    event('c-1', 'jc', 5, { operation: 'completed', service: 'worker' }),
    event('d-1', 'jd', 4),
    event('e-1', 'je', 90),
    event('t-1', 'jt', 30, {
      operation: 'transformed',
      name: 'normalize-contact',
      input: { customer: { name: 'Ada', phone: '+44 20 7946 0000', mail: 'ada@example.com' } },
      output: { customer: { name: 'ADA', email: 'ada@example.com', phone: null, tier: 'gold' } },
    }),
  ]);
  cookie = await signIn(app);
  const created = await app.inject({
    method: 'POST',
    url: '/v1/replay-destinations',
    headers: bearer(TEST_ADMIN_TOKEN),
    payload: { name: 'crm', baseUrl: 'https://crm.example/api', environmentType: 'test', headers: { authorization: 'Bearer crm-secret-value-123' } },
  });
  expect(created.statusCode, created.body).toBe(201);
  destinationId = created.json().data.id;
});

afterAll(async () => {
  await app.close();
  await db.drop();
});

function ui(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return app.inject({ method, url: `/ui/api${url}`, headers: { cookie, ...SAME_ORIGIN }, ...(payload === undefined ? {} : { payload }) });
}

describe('GET /ui/api/v1/journeys/activity', () => {
  it('counts journeys by bucket of lastEventAt and status over the window', async () => {
    const response = await ui('GET', `/v1/journeys/activity?since=${HOUR_AGO}&buckets=6`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const data = response.json().data;
    expect(data.since).toBe(HOUR_AGO);
    expect(data.until).toBe(new Date(NOW).toISOString());
    expect(data.bucketSeconds).toBe(600);
    expect(data.buckets.map((b: { start: string }) => b.start)).toEqual([60, 50, 40, 30, 20, 10].map(minutesAgo));
    expect(data.buckets.map((b: { active: number; completed: number; failed: number }) => [b.active, b.completed, b.failed])).toEqual([
      [1, 0, 0], // ja active at -55
      [0, 0, 1], // jb failed at -50: a bucket includes its start
      [0, 0, 0],
      [1, 0, 0], // jt at -30
      [0, 0, 0],
      [1, 1, 0], // jd active at -4, jc completed at -5
    ]);
  });

  it('applies the journey list filters', async () => {
    const total = async (query: string) => {
      const response = await ui('GET', `/v1/journeys/activity?since=${HOUR_AGO}&${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data.buckets.reduce((n: number, b: { active: number; completed: number; failed: number }) => n + b.active + b.completed + b.failed, 0);
    };
    expect(await total('status=failed')).toBe(1);
    expect(await total('service=worker')).toBe(1);
    expect(await total('q=alpha')).toBe(1);
    expect(await total('entityType=contact')).toBe(5);
    expect(await total('entityType=order')).toBe(0);
    expect(await total('environment=staging')).toBe(0);
    expect(await total(`until=${minutesAgo(20)}`)).toBe(3);
  });

  it('defaults to 60 buckets and covers a window that does not divide evenly', async () => {
    const data = (await ui('GET', `/v1/journeys/activity?since=${HOUR_AGO}`)).json().data;
    expect(data.bucketSeconds).toBe(60);
    expect(data.buckets).toHaveLength(60);
    const odd = (await ui('GET', `/v1/journeys/activity?since=${new Date(NOW - 61_000).toISOString()}&buckets=60`)).json().data;
    expect(odd.bucketSeconds).toBe(2);
    expect(odd.buckets).toHaveLength(31);
  });

  it('refuses what the list refuses, and bad bucket counts', async () => {
    expectError(await ui('GET', '/v1/journeys/activity?buckets=6'), 400, 'invalid_query');
    expectError(await ui('GET', `/v1/journeys/activity?since=${HOUR_AGO}&status=nope`), 400, 'invalid_query');
    expectError(await ui('GET', `/v1/journeys/activity?since=${HOUR_AGO}&limit=5`), 400, 'invalid_query');
    for (const buckets of ['0', '201', '-1', '1.5', 'x', '', '0060']) {
      expectError(await ui('GET', `/v1/journeys/activity?since=${HOUR_AGO}&buckets=${buckets}`), 400, 'invalid_query');
    }
    expect((await ui('GET', `/v1/journeys/activity?since=${HOUR_AGO}&buckets=200`)).statusCode).toBe(200);
    expect((await ui('GET', `/v1/journeys/activity?since=${HOUR_AGO}&buckets=1`)).json().data.buckets).toHaveLength(1);
  });

  it('is not served under /v1 and needs a session', async () => {
    // Under /v1 the path is simply a journey id that does not exist.
    expectError(await app.inject({ method: 'GET', url: '/v1/journeys/activity', headers: bearer(TEST_ADMIN_TOKEN) }), 404, 'not_found');
    expectError(await app.inject({ method: 'GET', url: `/ui/api/v1/journeys/activity?since=${HOUR_AGO}` }), 401, 'unauthorized');
  });
});

describe('GET /ui/api/v1/events/:id/diff', () => {
  it('lists the lost phone first, pairs the renamed key, then changed and added values', async () => {
    const response = await ui('GET', '/v1/events/t-1/diff');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toEqual({
      comparable: true,
      truncated: false,
      rows: [
        { path: 'customer.phone', kind: 'lost', before: '+44 20 7946 0000', after: null },
        { path: 'customer.email', kind: 'renamed', renamedFrom: 'customer.mail', before: 'ada@example.com', after: 'ada@example.com' },
        { path: 'customer.name', kind: 'changed', before: 'Ada', after: 'ADA' },
        { path: 'customer.tier', kind: 'added', after: 'gold' },
      ],
    });
  });

  it('says when there is nothing to compare, and refuses like the event read', async () => {
    expect((await ui('GET', '/v1/events/a-1/diff')).json().data).toEqual({ comparable: false, rows: [], truncated: false });
    expectError(await ui('GET', '/v1/events/missing/diff'), 404, 'not_found');
    expectError(await ui('GET', `/v1/events/${'x'.repeat(129)}/diff`), 404, 'not_found');
    expectError(await ui('GET', '/v1/events/t-1/diff?x=1'), 400, 'invalid_query');
    expectError(await app.inject({ method: 'GET', url: '/ui/api/v1/events/t-1/diff' }), 401, 'unauthorized');
    const otherProject = await app.inject({
      method: 'GET',
      url: '/ui/api/v1/events/t-1/diff',
      headers: { cookie, 'x-service-project-id': '00000000-0000-4000-8000-000000000000' },
    });
    expectError(otherProject, 404, 'project_not_found');
  });
});

describe('POST /ui/api/v1/replays/preview', () => {
  it('shows what a replay would send, destination header values redacted, and sends nothing', async () => {
    const response = await ui('POST', '/v1/replays/preview', { eventId: 't-1', destinationId, method: 'PUT', path: '/contacts/1' });
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data).toEqual({
      method: 'PUT',
      url: 'https://crm.example/api/contacts/1',
      headers: {
        authorization: '[REDACTED]',
        'content-type': 'application/json',
        'user-agent': 'jtrace-replay/0.0.0',
        'x-service-replay': '(run id, set when sent)',
      },
      body: expect.any(String),
      blocked: null,
    });
    // The body is the recorded input's stored text, byte for byte what a send carries.
    expect(JSON.parse(data.body)).toEqual({ customer: { name: 'Ada', phone: '+44 20 7946 0000', mail: 'ada@example.com' } });
    expect(response.body).not.toContain('crm-secret-value-123');
    const runs = await db.pool.query('SELECT count(*)::int AS n FROM replay_runs');
    expect(runs.rows[0].n).toBe(0);
  });

  it('refuses as POST /v1/replays refuses', async () => {
    expectError(await ui('POST', '/v1/replays/preview', { eventId: 't-1', destinationId: 'nope', path: '/x' }), 400, 'invalid_request');
    expectError(await ui('POST', '/v1/replays/preview', { eventId: 'missing', destinationId, path: '/x' }), 404, 'not_found');
    expectError(await ui('POST', '/v1/replays/preview', { eventId: 'a-1', destinationId, path: '/x' }), 409, 'no_captured_input');
    const noOrigin = await app.inject({ method: 'POST', url: '/ui/api/v1/replays/preview', headers: { cookie }, payload: { eventId: 't-1', destinationId, path: '/x' } });
    expectError(noOrigin, 403, 'forbidden_origin');
    const noSession = await app.inject({ method: 'POST', url: '/ui/api/v1/replays/preview', headers: SAME_ORIGIN, payload: { eventId: 't-1', destinationId, path: '/x' } });
    expectError(noSession, 401, 'unauthorized');
  });

  it('says when the host is not allowed', async () => {
    const other = await webApp(db, { now: clock(NOW).now });
    try {
      const response = await other.inject({
        method: 'POST',
        url: '/ui/api/v1/replays/preview',
        headers: { cookie, ...SAME_ORIGIN },
        payload: { eventId: 't-1', destinationId, path: '/x' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().data.blocked).toBe('host_not_allowed');
    } finally {
      await other.close();
    }
  });
});

// Last in the file: it adds a journey, which the counts above must not see.
describe('GET /ui/api/v1/journeys/activity without parameters', () => {
  it('is the journey read of a journey named activity, which the static route would otherwise hide', async () => {
    expectError(await ui('GET', '/v1/journeys/activity'), 404, 'not_found');
    const stored = await app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: bearer(project.apiKey),
      payload: { protocolVersion: '0.1', event: { environment: 'production', ...event('act-1', 'activity', 300) } },
    });
    expect(stored.statusCode, stored.body).toBe(202);
    const journey = await ui('GET', '/v1/journeys/activity');
    expect(journey.statusCode, journey.body).toBe(200);
    expect(journey.json().data).toMatchObject({ journeyId: 'activity', entity: { type: 'contact', id: 'contact-activity' }, eventCount: 1 });
  });
});

describe('GET /ui/api/v1/events/:eventId/replays', () => {
  it('lists the runs already sent for the event, newest first, destination header values redacted', async () => {
    const blocked = await app.inject({
      method: 'POST',
      url: '/v1/replay-destinations',
      headers: bearer(TEST_ADMIN_TOKEN),
      payload: { name: 'elsewhere', baseUrl: 'https://elsewhere.example', environmentType: 'test', headers: { 'x-api-key': 'elsewhere-secret-456' } },
    });
    expect(blocked.statusCode, blocked.body).toBe(201);
    // Hosts outside REPLAY_ALLOWED_HOSTS are stored as blocked runs: nothing leaves the test.
    for (const path of ['/first', '/second']) {
      const sent = await app.inject({
        method: 'POST',
        url: '/v1/replays',
        headers: bearer(TEST_ADMIN_TOKEN),
        payload: { eventId: 't-1', destinationId: blocked.json().data.id, method: 'POST', path },
      });
      expect(sent.statusCode, sent.body).toBe(422);
    }
    const answer = await ui('GET', '/v1/events/t-1/replays');
    expect(answer.statusCode, answer.body).toBe(200);
    const items = answer.json().data.items as { path: string; status: string; requestHeaders: Record<string, string> }[];
    // The test clock stands still, so both runs share their creation time: their order is the id's.
    expect(items.map((run) => run.path).sort()).toEqual(['/first', '/second']);
    expect(items[0]!.status).toBe('blocked');
    expect(answer.body).not.toContain('elsewhere-secret-456');

    expect((await ui('GET', '/v1/events/a-1/replays')).json().data.items).toEqual([]);
    expect((await ui('GET', '/v1/events/no-such-event/replays')).json().data.items).toEqual([]);
    expectError(await app.inject({ method: 'GET', url: '/ui/api/v1/events/t-1/replays' }), 401, 'unauthorized');
  });
});
