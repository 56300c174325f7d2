import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppDeps } from '../app.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, seedProject, testConfig } from '../../test/helpers/app.ts';
import { AppError } from './errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTERNAL_SECRET = 'internal-detail-password=hunter2';
const JSON_HEADERS = { 'content-type': 'application/json' };

let db: TestDatabase;
let timeoutPool: Pool;
let app: FastifyInstance;
let deps: AppDeps;

beforeAll(async () => {
  db = await createTestDatabase();
  timeoutPool = createPool({ connectionString: db.url, max: 2, statementTimeoutMs: 100 });
  deps = {
    config: testConfig(),
    pool: db.pool,
    keyring: createKeyring({ current: TEST_ENCRYPTION_KEY }),
    adminToken: TEST_ADMIN_TOKEN,
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(db.pool),
    build: { version: '0.0.0', source: 'package' },
  };
  app = await buildApp(deps);
  // Test routes, registered before ready(): no parameterized or body route exists yet.
  app.get('/v1/test/:id', async (request) => {
    const { id } = request.params as { id: string };
    return { length: id.length };
  });
  app.post('/v1/test/echo', async (request) => {
    const body = request.body as Record<string, unknown>;
    const proto = body['__proto__'] as Record<string, unknown> | undefined;
    return {
      keys: Object.keys(body),
      ownProto: Object.prototype.hasOwnProperty.call(body, '__proto__'),
      ownConstructor: Object.prototype.hasOwnProperty.call(body, 'constructor'),
      plainPrototype: Object.getPrototypeOf(body) === Object.prototype,
      inheritedPolluted: (body as { polluted?: unknown }).polluted ?? null,
      protoKeys: proto && typeof proto === 'object' ? Object.keys(proto) : null,
      body,
    };
  });
  app.get('/v1/test/throw', async () => {
    throw new Error(INTERNAL_SECRET);
  });
  app.get('/v1/test/throw-with-status', async () => {
    throw Object.assign(new Error(INTERNAL_SECRET), { statusCode: 400, code: 'SOME_CODE' });
  });
  app.get('/v1/test/throw-string', async () => {
    throw INTERNAL_SECRET as unknown as Error;
  });
  app.get('/v1/test/app-error', async () => {
    throw new AppError(400, 'invalid_request', 'The field is wrong.', [{ path: 'name', message: 'required' }]);
  });
  app.get('/v1/test/app-error-plain', async () => {
    throw new AppError(404, 'not_found', 'Nothing here.');
  });
  app.get('/v1/test/pg-error', async () => {
    await db.pool.query('SELECT 1 / 0');
    return { unreachable: true };
  });
  app.get('/v1/test/slow/:n', async () => {
    await timeoutPool.query('SELECT pg_sleep(2)');
    return { unreachable: true };
  });
  await app.ready();
  await seedProject(db.pool, deps.keyring, 'acme');
});
afterAll(async () => {
  await app.close();
  await timeoutPool.end();
  await db.drop();
});

function inject(options: InjectOptions): Promise<LightMyRequestResponse> {
  return app.inject(options);
}

/** The section 7 body: exactly { error: { code, message, requestId, details? } }. */
function expectErrorShape(response: LightMyRequestResponse, status: number, code: string): Record<string, unknown> {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json() as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  const error = body.error;
  expect(error.code).toBe(code);
  expect(typeof error.message).toBe('string');
  expect((error.message as string).length).toBeGreaterThan(0);
  expect(error.requestId).toMatch(UUID);
  const allowed = ['code', 'message', 'requestId', 'details'];
  for (const key of Object.keys(error)) expect(allowed).toContain(key);
  if ('details' in error) {
    expect(Array.isArray(error.details)).toBe(true);
    expect((error.details as unknown[]).length).toBeGreaterThan(0);
    for (const detail of error.details as Record<string, unknown>[]) {
      expect(Object.keys(detail).sort()).toEqual(['message', 'path']);
      expect(typeof detail.path).toBe('string');
      expect(typeof detail.message).toBe('string');
    }
  }
  return error;
}

const longParam = (n: number) => 'a'.repeat(n);

describe('error body (section 7)', () => {
  const cases: Array<[string, InjectOptions, number, string]> = [
    ['unknown route', { method: 'GET', url: '/v1/nothing' }, 404, 'not_found'],
    ['refused credential', { method: 'GET', url: '/v1/projects', headers: bearer('nope') }, 401, 'unauthorized'],
    ['bad query encoding', { method: 'GET', url: '/v1/projects?x=%zz' }, 400, 'bad_url'],
    ['unknown query parameter', { method: 'GET', url: '/v1/projects?x=1', headers: bearer(TEST_ADMIN_TOKEN) }, 400, 'invalid_query'],
    ['unsupported media type', { method: 'POST', url: '/v1/test/echo', payload: '<a/>', headers: { 'content-type': 'application/xml' } }, 415, 'unsupported_media_type'],
    ['malformed JSON', { method: 'POST', url: '/v1/test/echo', payload: '{', headers: JSON_HEADERS }, 400, 'malformed_json'],
    ['body too large', { method: 'POST', url: '/v1/test/echo', payload: `"${'x'.repeat(1_048_576)}"`, headers: JSON_HEADERS }, 413, 'payload_too_large'],
    ['thrown Error', { method: 'GET', url: '/v1/test/throw' }, 500, 'internal_error'],
    ['AppError with details', { method: 'GET', url: '/v1/test/app-error' }, 400, 'invalid_request'],
    ['bad encoding in the path', { method: 'GET', url: '/v1/test/%zz' }, 400, 'bad_url'],
    ['over-long path parameter', { method: 'GET', url: `/v1/test/${longParam(1153)}` }, 414, 'parameter_too_long'],
  ];

  it.each(cases)('%s: has the error body shape', async (_label, options, status, code) => {
    expectErrorShape(await inject(options), status, code);
  });

  it.each(cases)('%s: requestId equals the x-request-id response header', async (_label, options) => {
    const response = await inject(options);
    const body = response.json() as { error: { requestId: string } };
    expect(response.headers['x-request-id']).toBe(body.error.requestId);
  });

  it('gives every request its own request id', async () => {
    const a = await inject({ method: 'GET', url: '/v1/nothing' });
    const b = await inject({ method: 'GET', url: '/v1/nothing' });
    expect(a.json().error.requestId).not.toBe(b.json().error.requestId);
  });

  it('carries details only when there are some', async () => {
    const withDetails = expectErrorShape(
      await inject({ method: 'GET', url: '/v1/projects?unknown=1', headers: bearer(TEST_ADMIN_TOKEN) }),
      400,
      'invalid_query',
    );
    expect(withDetails.details).toEqual([{ path: 'unknown', message: expect.any(String) }]);

    const thrownWithDetails = expectErrorShape(await inject({ method: 'GET', url: '/v1/test/app-error' }), 400, 'invalid_request');
    expect(thrownWithDetails).toEqual({
      code: 'invalid_request',
      message: 'The field is wrong.',
      requestId: expect.any(String),
      details: [{ path: 'name', message: 'required' }],
    });

    const without = expectErrorShape(await inject({ method: 'GET', url: '/v1/test/app-error-plain' }), 404, 'not_found');
    expect('details' in without).toBe(false);
    const unauthorized = expectErrorShape(await inject({ method: 'GET', url: '/v1/projects' }), 401, 'unauthorized');
    expect('details' in unauthorized).toBe(false);
  });
});

describe('unknown routes', () => {
  it('answers 404 not_found naming method and path, never the query string', async () => {
    const response = await inject({ method: 'GET', url: '/v1/nothing/here?token=secret-value&x=1' });
    const error = expectErrorShape(response, 404, 'not_found');
    expect(error.message).toContain('GET');
    expect(error.message).toContain('/v1/nothing/here');
    expect(error.message).not.toContain('?');
    expect(error.message).not.toContain('token');
    expect(error.message).not.toContain('secret-value');
    expect(response.body).not.toContain('secret-value');
  });

  it('names the method of a POST and of a known path with an unknown method', async () => {
    const post = expectErrorShape(await inject({ method: 'POST', url: '/v1/elsewhere', payload: {} }), 404, 'not_found');
    expect(post.message).toContain('POST /v1/elsewhere');
    const wrongMethod = expectErrorShape(await inject({ method: 'DELETE', url: '/v1/projects?q=1' }), 404, 'not_found');
    expect(wrongMethod.message).toContain('DELETE /v1/projects');
    expect(wrongMethod.message).not.toContain('q=1');
  });

  it('matches the route before looking at the query: an unknown route with bad encoding is 404', async () => {
    expectErrorShape(await inject({ method: 'GET', url: '/v1/nothing?x=%zz' }), 404, 'not_found');
  });

  it('does not look at credentials on an unknown route', async () => {
    expectErrorShape(await inject({ method: 'GET', url: '/v1/nothing', headers: bearer('wrong') }), 404, 'not_found');
  });
});

describe('bad_url', () => {
  it.each(['%', '%zz', '%E0%A4%A', '%C3%28', '%FF', 'a=%2', 'ok=1&bad=%G1'])(
    'refuses the query %s with 400 bad_url before authentication',
    async (query) => {
      const response = await inject({ method: 'GET', url: `/v1/projects?${query}` });
      const error = expectErrorShape(response, 400, 'bad_url');
      expect(error.message).not.toContain(query);
    },
  );

  it('accepts well-formed encodings', async () => {
    const response = await inject({ method: 'GET', url: '/v1/projects?', headers: bearer(TEST_ADMIN_TOKEN) });
    expect(response.statusCode).toBe(200);
  });
});

describe('path parameter length (414)', () => {
  it('accepts a parameter of exactly 1,152 characters', async () => {
    const response = await inject({ method: 'GET', url: `/v1/test/${longParam(1152)}` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ length: 1152 });
  });

  it('answers 414 parameter_too_long for 1,153 characters, without quoting the URL', async () => {
    const param = longParam(1153);
    const response = await inject({ method: 'GET', url: `/v1/test/${param}?q=query-value` });
    const error = expectErrorShape(response, 414, 'parameter_too_long');
    expect(response.body).not.toContain('aaaaaaaaaa');
    expect(response.body).not.toContain('/v1/test/');
    expect(response.body).not.toContain('query-value');
    expect(error.message).not.toContain(param);
  });

  it('counts encoded characters: 1,152 encoded characters are accepted', async () => {
    // 384 escapes of three characters each decode to 384 characters.
    const response = await inject({ method: 'GET', url: `/v1/test/${'%41'.repeat(384)}` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ length: 384 });
  });

  it('counts encoded characters: 1,153 encoded characters are 414 even when they decode to fewer', async () => {
    const response = await inject({ method: 'GET', url: `/v1/test/${'%41'.repeat(384)}a` });
    expectErrorShape(response, 414, 'parameter_too_long');
  });

  it('counts a 414 URL refusal under route "unmatched"', async () => {
    await inject({ method: 'GET', url: `/v1/test/${longParam(2000)}` });
    const text = await deps.metrics.registry.getSingleMetricAsString('service_http_requests_total');
    expect(text).toMatch(/service_http_requests_total\{method="GET",route="unmatched",status="414"\} [1-9]/);
  });

  it('counts a 400 bad_url refusal of the path under route "unmatched"', async () => {
    await inject({ method: 'GET', url: '/v1/test/%zz' });
    const text = await deps.metrics.registry.getSingleMetricAsString('service_http_requests_total');
    expect(text).toMatch(/service_http_requests_total\{method="GET",route="unmatched",status="400"\} [1-9]/);
  });

  it('counts a 400 bad_url refusal of the query under route "unmatched"', async () => {
    // Other tests in this file answer legitimate 400s on /v1/projects, so compare counts.
    const count = async (route: string) => {
      const metric = await deps.metrics.httpRequests.get();
      return metric.values.find((v) => v.labels.route === route && v.labels.status === '400' && v.labels.method === 'GET')?.value ?? 0;
    };
    const [unmatchedBefore, projectsBefore] = [await count('unmatched'), await count('/v1/projects')];
    await inject({ method: 'GET', url: '/v1/projects?x=%zz' });
    expect(await count('unmatched')).toBe(unmatchedBefore + 1);
    expect(await count('/v1/projects')).toBe(projectsBefore);
  });
});

describe('request bodies', () => {
  it.each(['application/xml', 'text/html', 'application/x-www-form-urlencoded', 'application/jsonp', 'multipart/form-data; boundary=x'])(
    'refuses content-type %s with 415 unsupported_media_type',
    async (contentType) => {
      const response = await inject({ method: 'POST', url: '/v1/test/echo', payload: '<a>1</a>', headers: { 'content-type': contentType } });
      expectErrorShape(response, 415, 'unsupported_media_type');
    },
  );

  it('refuses a body without content-type with 415', async () => {
    expectErrorShape(await inject({ method: 'POST', url: '/v1/test/echo', payload: '{"a":1}' }), 415, 'unsupported_media_type');
  });

  it('accepts application/json in any case and with parameters', async () => {
    for (const contentType of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'APPLICATION/JSON;charset=UTF-8']) {
      const response = await inject({ method: 'POST', url: '/v1/test/echo', payload: '{"a":1}', headers: { 'content-type': contentType } });
      expect(response.statusCode, contentType).toBe(200);
      expect(response.json().body).toEqual({ a: 1 });
    }
  });

  it.each(['{', '{"a":}', "{'a':1}", 'nul', '{"a":1}}', '[1,]', 'NaN', '{"a":1} x'])(
    'refuses invalid JSON %s with 400 malformed_json',
    async (payload) => {
      const response = await inject({ method: 'POST', url: '/v1/test/echo', payload, headers: JSON_HEADERS });
      const error = expectErrorShape(response, 400, 'malformed_json');
      expect(error.message).not.toContain(payload);
    },
  );

  it('refuses an empty JSON body with 400 malformed_json', async () => {
    expectErrorShape(await inject({ method: 'POST', url: '/v1/test/echo', payload: '', headers: JSON_HEADERS }), 400, 'malformed_json');
  });

  it.each([
    ['a lone 0xFF byte', [0xff]],
    ['a truncated sequence', [0xc3]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ])('refuses invalid UTF-8 (%s) inside a JSON string with 400 malformed_json', async (_label, bytes) => {
    const payload = Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bytes), Buffer.from('"}')]);
    const response = await inject({ method: 'POST', url: '/v1/test/echo', payload, headers: JSON_HEADERS });
    expectErrorShape(response, 400, 'malformed_json');
  });

  it('reads valid multi-byte UTF-8', async () => {
    const payload = Buffer.from('{"a":"é😀"}', 'utf8');
    const response = await inject({ method: 'POST', url: '/v1/test/echo', payload, headers: JSON_HEADERS });
    expect(response.statusCode).toBe(200);
    expect(response.json().body).toEqual({ a: 'é😀' });
  });

  it('keeps __proto__ and constructor as own keys and never applies them to a prototype', async () => {
    const payload = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"a":1}';
    const response = await inject({ method: 'POST', url: '/v1/test/echo', payload, headers: JSON_HEADERS });
    expect(response.statusCode).toBe(200);
    const result = response.json();
    expect(result.keys).toEqual(['__proto__', 'constructor', 'a']);
    expect(result.ownProto).toBe(true);
    expect(result.ownConstructor).toBe(true);
    expect(result.plainPrototype).toBe(true);
    expect(result.inheritedPolluted).toBeNull();
    expect(result.protoKeys).toEqual(['polluted']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('keeps __proto__ at depth and the last of repeated keys', async () => {
    const payload = '{"a":1,"nested":{"deeper":{"__proto__":{"x":1}}},"a":2}';
    const response = await inject({ method: 'POST', url: '/v1/test/echo', payload, headers: JSON_HEADERS });
    expect(response.statusCode).toBe(200);
    const result = response.json();
    expect(result.keys).toEqual(['a', 'nested']);
    expect(result.body.a).toBe(2);
    expect(Object.keys(result.body.nested.deeper)).toEqual(['__proto__']);
  });
});

describe('unexpected failures', () => {
  it('answers a thrown Error with 500 internal_error and a generic message', async () => {
    const response = await inject({ method: 'GET', url: '/v1/test/throw' });
    const error = expectErrorShape(response, 500, 'internal_error');
    expect(response.body).not.toContain(INTERNAL_SECRET);
    expect(response.body).not.toContain('hunter2');
    expect(error.message).toBe('An unexpected error occurred.');
  });

  it('ignores the statusCode and code of a foreign error', async () => {
    const response = await inject({ method: 'GET', url: '/v1/test/throw-with-status' });
    const error = expectErrorShape(response, 500, 'internal_error');
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain('SOME_CODE');
    expect(error.code).toBe('internal_error');
  });

  it('answers a thrown non-Error with 500 internal_error', async () => {
    const response = await inject({ method: 'GET', url: '/v1/test/throw-string' });
    expectErrorShape(response, 500, 'internal_error');
    expect(response.body).not.toContain('hunter2');
  });

  it('never shows a database error code or text', async () => {
    const response = await inject({ method: 'GET', url: '/v1/test/pg-error' });
    const error = expectErrorShape(response, 500, 'internal_error');
    expect(error.code).not.toBe('22012');
    expect(response.body).not.toContain('22012');
    expect(response.body.toLowerCase()).not.toContain('division');
  });

  it('answers a statement timeout (57014) with 503 query_timeout and counts it by route', async () => {
    const before = await deps.metrics.registry.getSingleMetricAsString('service_query_timeouts_total');
    expect(before).not.toContain('route="/v1/test/slow/:n"');

    const response = await inject({ method: 'GET', url: '/v1/test/slow/1?q=secret' });
    const error = expectErrorShape(response, 503, 'query_timeout');
    expect(response.body).not.toContain('57014');
    expect(response.body).not.toContain('pg_sleep');
    expect(response.body.toLowerCase()).not.toContain('canceling statement');
    expect(error.code).toBe('query_timeout');

    let text = await deps.metrics.registry.getSingleMetricAsString('service_query_timeouts_total');
    expect(text).toContain('service_query_timeouts_total{route="/v1/test/slow/:n"} 1');
    expect(text).not.toContain('secret');

    await inject({ method: 'GET', url: '/v1/test/slow/2' });
    text = await deps.metrics.registry.getSingleMetricAsString('service_query_timeouts_total');
    expect(text).toContain('service_query_timeouts_total{route="/v1/test/slow/:n"} 2');
  });

  it('does not count other failures as query timeouts', async () => {
    await inject({ method: 'GET', url: '/v1/test/pg-error' });
    await inject({ method: 'GET', url: '/v1/test/throw' });
    const text = await deps.metrics.registry.getSingleMetricAsString('service_query_timeouts_total');
    expect(text).not.toContain('/v1/test/pg-error');
    expect(text).not.toContain('/v1/test/throw');
  });
});
