import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { setDestinationDisabled } from './destinations.ts';
import { admin, createDestinationVia, ingestEvent, json, replay, startTarget, type Target } from './test-kit.ts';

const TOKEN = 'Bearer replay-secret-token-0001';
const SIGNATURE = 'sig-abcdef-123456';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let db: TestDatabase;
let app: FastifyInstance;
let target: Target;
let acme: SeededProject;
let other: SeededProject;
let destinationId: string;
let eventId: string;
const input = { order: { id: 'ORD-1', total: 12.5, lines: [1, 2] }, amount: 1e21 };
const output = { order: { id: 'ORD-1', total: 12.5, status: 'mapped' } };

async function runCount(): Promise<number> {
  const result = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM replay_runs');
  return result.rows[0]!.n;
}

beforeAll(async () => {
  db = await createTestDatabase();
  const built = await buildTestApp(db.pool, { config: { replayAllowedHosts: ['127.0.0.1', 'localhost'] } });
  app = built.app;
  acme = await seedProject(db.pool, built.deps.keyring, 'acme');
  other = await seedProject(db.pool, built.deps.keyring, 'other');
  target = await startTarget();
  destinationId = (
    await createDestinationVia(app, acme.projectId, {
      baseUrl: `${target.origin}/base`,
      headers: { Authorization: TOKEN, 'X-Signature': SIGNATURE, 'X-Tenant': 'acme' },
    })
  ).id;
  eventId = await ingestEvent(app, acme.apiKey, { input, output });
});
afterAll(async () => {
  await app.close();
  await target.close();
  await db.drop();
});
beforeEach(() => {
  target.requests.length = 0;
  target.handle((_request, response) => json(response, 200, { order: { id: 'ORD-1', total: 13, status: 'mapped' }, extra: true }));
});

describe('POST /v1/replays', () => {
  it('sends the recorded input with the destination headers and stores a completed run', async () => {
    const response = await replay(app, acme.projectId, { eventId, destinationId, path: '/orders?source=replay' });
    expect(response.statusCode, response.body).toBe(200);
    const run = response.json().data;
    expect(target.requests).toHaveLength(1);
    const sent = target.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/base/orders?source=replay');
    // Byte for byte the stored jsonb text: nothing is re-parsed or re-rounded on the way.
    const stored = await db.pool.query<{ text: string }>('SELECT input_payload::text AS text FROM events WHERE id = $1', [eventId]);
    expect(sent.body).toBe(stored.rows[0]!.text);
    expect(JSON.parse(sent.body)).toEqual(input);
    expect(sent.headers.authorization).toBe(TOKEN);
    expect(sent.headers['x-signature']).toBe(SIGNATURE);
    expect(sent.headers['x-tenant']).toBe('acme');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['user-agent']).toBe('jtrace-replay/0.0.0');
    expect(sent.headers['x-service-replay']).toBe(run.id);

    expect(run).toEqual({
      id: expect.stringMatching(UUID),
      eventId,
      destinationId,
      method: 'POST',
      path: '/orders?source=replay',
      requestPayload: input,
      requestHeaders: {
        Authorization: '[REDACTED]',
        'X-Signature': '[REDACTED]',
        'X-Tenant': '[REDACTED]',
        'content-type': 'application/json',
        'user-agent': 'jtrace-replay/0.0.0',
        'x-service-replay': run.id,
      },
      status: 'completed',
      responseStatus: 200,
      responsePayload: { order: { id: 'ORD-1', total: 13, status: 'mapped' }, extra: true },
      durationMs: expect.any(Number),
      error: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      completedAt: expect.stringMatching(TIMESTAMP),
      comparison: [
        { path: 'order.total', kind: 'changed', before: 12.5, after: 13 },
        { path: 'extra', kind: 'added', after: true },
      ],
    });
    const read = await app.inject({ method: 'GET', url: `/v1/replays/${run.id}`, headers: admin(acme.projectId) });
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toEqual(run);
  });

  it.each(['PUT', 'PATCH'])('sends %s when asked, and an empty path is the base URL itself', async (method) => {
    const response = await replay(app, acme.projectId, { eventId, destinationId, method, path: '', ignored: 1 });
    expect(response.statusCode, response.body).toBe(200);
    expect(target.requests.map((r) => [r.method, r.url])).toEqual([[method, '/base']]);
  });

  it('is completed whatever the HTTP status, storing a text body as a JSON string', async () => {
    target.handle((_request, response) => {
      response.writeHead(503, { 'content-type': 'text/plain' });
      response.end('upstream down');
    });
    const run = (await replay(app, acme.projectId, { eventId, destinationId, path: '/x' })).json().data;
    expect(run).toMatchObject({ status: 'completed', responseStatus: 503, responsePayload: 'upstream down', error: null });
    expect(run.comparison).toEqual([{ path: '', kind: 'changed', before: output, after: 'upstream down' }]);
  });

  it('scrubs echoed header values from the stored response and never stores them in requestHeaders', async () => {
    target.handle((request, response) => json(response, 200, { echoed: request.headers, note: `got ${SIGNATURE}!` }));
    const response = await replay(app, acme.projectId, { eventId, destinationId, path: '/echo' });
    const run = response.json().data;
    expect(target.requests[0]!.headers.authorization).toBe(TOKEN);
    expect(run.responsePayload.echoed.authorization).toBe('[REDACTED]');
    expect(run.responsePayload.echoed['x-signature']).toBe('[REDACTED]');
    expect(run.responsePayload.note).toBe('got [REDACTED]!');
    // Shorter than 8 characters: not scrubbed from responses (documented), still redacted in requestHeaders.
    expect(run.responsePayload.echoed['x-tenant']).toBe('acme');
    expect(run.requestHeaders['X-Tenant']).toBe('[REDACTED]');
    const stored = await db.pool.query('SELECT response_payload::text, request_headers::text, comparison::text FROM replay_runs WHERE id = $1', [run.id]);
    const text = JSON.stringify(stored.rows[0]);
    expect(text).not.toContain('replay-secret-token-0001');
    expect(text).not.toContain(SIGNATURE);
    expect(response.body).not.toContain('replay-secret-token-0001');
  });

  it('stores comparison null when the event recorded no output', async () => {
    const inputOnly = await ingestEvent(app, acme.apiKey, { input: { a: 1 } });
    const run = (await replay(app, acme.projectId, { eventId: inputOnly, destinationId, path: '/x' })).json().data;
    expect(run).toMatchObject({ status: 'completed', comparison: null, requestPayload: { a: 1 } });
  });

  it('records a refused connection as a failed run answered 200', async () => {
    const closed = await startTarget();
    await closed.close();
    const dead = await createDestinationVia(app, acme.projectId, { baseUrl: closed.origin });
    const response = await replay(app, acme.projectId, { eventId, destinationId: dead.id, path: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      status: 'failed',
      error: 'connection_refused',
      responseStatus: null,
      responsePayload: null,
      comparison: null,
    });
  });
});

describe('blocked replays', () => {
  it('blocks a host outside REPLAY_ALLOWED_HOSTS before sending anything, and stores the run', async () => {
    const { app: strict } = await buildTestApp(db.pool, { config: { replayAllowedHosts: ['localhost'] } });
    try {
      const response = await replay(strict, acme.projectId, { eventId, destinationId, path: '/orders' });
      expect(response.statusCode).toBe(422);
      const run = response.json().data;
      expect(run).toMatchObject({ status: 'blocked', error: 'host_not_allowed', responseStatus: null, durationMs: null, comparison: null });
      expect(run.requestHeaders.Authorization).toBe('[REDACTED]');
      expect(target.requests).toHaveLength(0);
      const read = await app.inject({ method: 'GET', url: `/v1/replays/${run.id}`, headers: admin(acme.projectId) });
      expect(read.json().data.status).toBe('blocked');
    } finally {
      await strict.close();
    }
  });

  it('blocks everything when the allowed list is empty', async () => {
    const { app: closed } = await buildTestApp(db.pool, { config: { replayAllowedHosts: [] } });
    try {
      const response = await replay(closed, acme.projectId, { eventId, destinationId, path: '/orders' });
      expect(response.statusCode).toBe(422);
      expect(response.json().data.error).toBe('host_not_allowed');
      expect(target.requests).toHaveLength(0);
    } finally {
      await closed.close();
    }
  });

  it('blocks with headers_key_not_configured when the encryption key changed', async () => {
    const keyring = createKeyring({ current: 'another-encryption-key-0123456789abcdefghij' });
    const { app: rekeyed } = await buildTestApp(db.pool, { keyring, config: { replayAllowedHosts: ['127.0.0.1'] } });
    try {
      const response = await replay(rekeyed, acme.projectId, { eventId, destinationId, path: '/orders' });
      expect(response.statusCode).toBe(422);
      expect(response.json().data).toMatchObject({ status: 'blocked', error: 'headers_key_not_configured' });
      expect(response.json().data.requestHeaders).toMatchObject({ Authorization: '[REDACTED]', 'X-Signature': '[REDACTED]' });
      expect(target.requests).toHaveLength(0);
    } finally {
      await rekeyed.close();
    }
  });
});

describe('refusals that store nothing', () => {
  it.each([
    ['missing body', undefined, 400, 'invalid_request'],
    ['an array body', [], 400, 'invalid_request'],
    ['eventId not a string', { eventId: 1, destinationId: 'D', path: '/' }, 400, 'invalid_request'],
    ['missing eventId', { destinationId: 'D', path: '/' }, 400, 'invalid_request'],
    ['destinationId not a uuid', { eventId: 'E', destinationId: 'nope', path: '/' }, 400, 'invalid_request'],
    ['destinationId not a string', { eventId: 'E', destinationId: 7, path: '/' }, 400, 'invalid_request'],
    ['NUL in eventId', { eventId: 'E\u0000', destinationId: 'D', path: '/' }, 400, 'invalid_request'],
    ['NUL in path', { eventId: 'E', destinationId: 'D', path: '/a\u0000' }, 400, 'invalid_request'],
    ['path not a string', { eventId: 'E', destinationId: 'D', path: ['/'] }, 400, 'invalid_request'],
    ['missing path', { eventId: 'E', destinationId: 'D' }, 400, 'invalid_request'],
    ['method GET', { eventId: 'E', destinationId: 'D', path: '/', method: 'GET' }, 400, 'invalid_request'],
    ['lower-case method', { eventId: 'E', destinationId: 'D', path: '/', method: 'post' }, 400, 'invalid_request'],
    ['absolute URL path', { eventId: 'E', destinationId: 'D', path: 'http://evil.example/x' }, 400, 'invalid_request'],
    ['protocol-relative path', { eventId: 'E', destinationId: 'D', path: '//evil.example/x' }, 400, 'invalid_request'],
    ['backslash path', { eventId: 'E', destinationId: 'D', path: '/\\evil.example' }, 400, 'invalid_request'],
    ['traversal', { eventId: 'E', destinationId: 'D', path: '/../admin' }, 400, 'invalid_request'],
    ['encoded traversal', { eventId: 'E', destinationId: 'D', path: '/%2e%2E/admin' }, 400, 'invalid_request'],
    ['unknown event', { eventId: 'evt_missing', destinationId: 'D', path: '/' }, 404, 'not_found'],
    ['over-long event id', { eventId: 'e'.repeat(129), destinationId: 'D', path: '/' }, 404, 'not_found'],
    ['unknown destination', { eventId: 'E', destinationId: '6f1f0a52-52c8-4c3a-9d0e-1c1a1b1c1d1e', path: '/' }, 404, 'not_found'],
  ])('%s', async (_label, body, status, code) => {
    const resolve = (value: unknown): unknown =>
      value === 'E' ? eventId : value === 'D' ? destinationId : value;
    const filled = body && typeof body === 'object' && !Array.isArray(body)
      ? Object.fromEntries(Object.entries(body).map(([k, v]) => [k, resolve(v)]))
      : body;
    const before = await runCount();
    const response = await replay(app, acme.projectId, filled);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json().error.code).toBe(code);
    expect(await runCount()).toBe(before);
    expect(target.requests).toHaveLength(0);
  });

  it('answers 409 no_captured_input and 409 destination_disabled', async () => {
    const before = await runCount();
    const noInput = await ingestEvent(app, acme.apiKey, { output: { a: 1 } });
    const first = await replay(app, acme.projectId, { eventId: noInput, destinationId, path: '/' });
    expect([first.statusCode, first.json().error.code]).toEqual([409, 'no_captured_input']);
    const disabled = await createDestinationVia(app, acme.projectId, { baseUrl: target.origin });
    await setDestinationDisabled(db.pool, acme.projectId, disabled.id, true);
    const second = await replay(app, acme.projectId, { eventId, destinationId: disabled.id, path: '/' });
    expect([second.statusCode, second.json().error.code]).toEqual([409, 'destination_disabled']);
    expect(await runCount()).toBe(before);
    expect(target.requests).toHaveLength(0);
  });

  it('does not reach another project’s event or destination', async () => {
    const foreign = await createDestinationVia(app, other.projectId, { baseUrl: target.origin });
    const a = await replay(app, acme.projectId, { eventId, destinationId: foreign.id, path: '/' });
    const b = await replay(app, other.projectId, { eventId, destinationId: foreign.id, path: '/' });
    expect([a.statusCode, a.json().error.code, b.statusCode, b.json().error.code]).toEqual([404, 'not_found', 404, 'not_found']);
  });
});

describe('GET /v1/replays/:replayId and credentials', () => {
  it('answers 404 for a non-uuid, unknown or other-project run', async () => {
    const run = (await replay(app, acme.projectId, { eventId, destinationId, path: '/' })).json().data;
    for (const [projectId, id] of [
      [acme.projectId, 'not-a-uuid'],
      [acme.projectId, '6f1f0a52-52c8-4c3a-9d0e-1c1a1b1c1d1e'],
      [acme.projectId, '%00'],
      [other.projectId, run.id],
    ] as const) {
      const response = await app.inject({ method: 'GET', url: `/v1/replays/${id}`, headers: admin(projectId) });
      expect([response.statusCode, response.json().error.code]).toEqual([404, 'not_found']);
    }
  });

  it('refuses an API key on every replay route with 401', async () => {
    const routes = [
      ['POST', '/v1/replays'],
      ['GET', `/v1/replays/6f1f0a52-52c8-4c3a-9d0e-1c1a1b1c1d1e`],
      ['POST', '/v1/replay-destinations'],
      ['GET', '/v1/replay-destinations'],
      ['DELETE', `/v1/replay-destinations/${destinationId}`],
    ] as const;
    for (const [method, url] of routes) {
      const response = await app.inject({
        method,
        url,
        headers: { ...bearer(acme.apiKey), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { payload: JSON.stringify({ eventId, destinationId, path: '/' }) } : {}),
        remoteAddress: `198.51.100.${routes.indexOf([method, url] as never) + 10}`,
      });
      expect([method, url, response.statusCode, response.json().error.code]).toEqual([method, url, 401, 'unauthorized']);
    }
    expect(target.requests).toHaveLength(0);
  });
});
