import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool } from '../db/pool.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { freePort } from '../../test/helpers/free-port.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, testConfig, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { countRows } from '../ingest/test-fixtures.ts';
import { decodeStatus } from './otlp-proto.ts';
import { hexId, jsonTraces, toProtobuf } from './test-payloads.ts';

/** Every refusal of the OTLP routes, in both encodings: size, gzip, media type, bodies, credentials. */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const MAX_BYTES = 16_384;
const PROTOBUF = { 'content-type': 'application/x-protobuf' };
const JSON_CT = { 'content-type': 'application/json' };

let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app } = await buildTestApp(db.pool, { keyring, config: { otlpEnabled: true, otlpMaxRequestBytes: MAX_BYTES } }));
  project = await seedProject(db.pool, keyring, 'otel-refusals');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

function post(payload: Buffer | string, headers: Record<string, string>, url = '/v1/traces') {
  return app.inject({ method: 'POST', url, payload, headers });
}

function journeySpan(journeyId: string, padding = '') {
  return jsonTraces('svc', [
    {
      traceId: hexId(16), spanId: hexId(8), name: 'step', startMs: Date.UTC(2026, 0, 1), durationMs: 1,
      attributes: {
        'jtrace.journey.id': journeyId, 'jtrace.entity.type': 'order', 'jtrace.entity.id': 'o-1', 'jtrace.operation': 'received',
        ...(padding ? { 'jtrace.metadata': { padding } } : {}),
      },
    },
  ]);
}

const events = () => countRows(db.pool, 'events WHERE project_id = $1', [project.projectId]);

/** A protobuf request's failure is a google.rpc.Status; a JSON one carries Status fields and jtrace's error. */
function expectStatus(response: Awaited<ReturnType<typeof post>>, status: number, grpcCode: number, jtraceCode: string) {
  expect(response.statusCode).toBe(status);
  if (response.headers['content-type'] === 'application/x-protobuf') {
    expect(decodeStatus(response.rawPayload).code).toBe(grpcCode);
  } else {
    const body = response.json() as { code: number; message: string; error: { code: string } };
    expect(body.code).toBe(grpcCode);
    expect(body.error.code).toBe(jtraceCode);
    expect(body.message).toBe((body.error as unknown as { message: string }).message);
  }
}

describe('gzip', () => {
  it('accepts a gzip body in both encodings', async () => {
    const json = journeySpan(`jrn_gzip_${hexId(8)}`);
    const before = await events();
    const headers = { ...bearer(project.apiKey), 'content-encoding': 'gzip' };
    expect((await post(gzipSync(toProtobuf('traces', json)), { ...headers, ...PROTOBUF })).statusCode).toBe(200);
    expect((await post(gzipSync(JSON.stringify(journeySpan(`jrn_gzip_${hexId(8)}`))), { ...headers, ...JSON_CT })).statusCode).toBe(200);
    expect(await events()).toBe(before + 2);
  });

  it('refuses with 413 a gzip body that inflates beyond the cap, though small when sent', async () => {
    const bomb = gzipSync(JSON.stringify(journeySpan('jrn_bomb', 'x'.repeat(MAX_BYTES * 4))));
    expect(bomb.length).toBeLessThan(MAX_BYTES);
    const response = await post(bomb, { ...bearer(project.apiKey), ...JSON_CT, 'content-encoding': 'gzip' });
    expectStatus(response, 413, 8, 'payload_too_large');
  });

  it('refuses a corrupt gzip stream with 400', async () => {
    const response = await post(Buffer.from('not gzip at all'), { ...bearer(project.apiKey), ...PROTOBUF, 'content-encoding': 'gzip' });
    expectStatus(response, 400, 3, 'invalid_request');
  });

  it('refuses another content encoding with 415', async () => {
    const response = await post('{}', { ...bearer(project.apiKey), ...JSON_CT, 'content-encoding': 'br' });
    expectStatus(response, 415, 3, 'unsupported_media_type');
  });
});

describe('size cap', () => {
  it('refuses with 413 a body over OTLP_MAX_REQUEST_BYTES, declared or chunked', async () => {
    const large = JSON.stringify(journeySpan('jrn_large', 'y'.repeat(MAX_BYTES)));
    expectStatus(await post(large, { ...bearer(project.apiKey), ...JSON_CT }), 413, 8, 'payload_too_large');

    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const status = await new Promise<number>((resolve, reject) => {
      const headers = { ...bearer(project.apiKey), ...JSON_CT, 'transfer-encoding': 'chunked' };
      const request = http.request({ host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', headers }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
      request.write(large.slice(0, 8_000));
      request.end(large.slice(8_000));
    });
    expect(status).toBe(413);
  });

  it('accepts a body just under the cap', async () => {
    const body = JSON.stringify(journeySpan(`jrn_fits_${hexId(8)}`, 'z'.repeat(MAX_BYTES - 1_200)));
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BYTES);
    expect((await post(body, { ...bearer(project.apiKey), ...JSON_CT })).statusCode).toBe(200);
  });
});

describe('media types and malformed bodies', () => {
  it.each([['text/plain'], ['application/xml'], ['application/protobuf']])('refuses %s with 415', async (type) => {
    expectStatus(await post('{}', { ...bearer(project.apiKey), 'content-type': type }), 415, 3, 'unsupported_media_type');
  });

  it('refuses a body without a content type with 415', async () => {
    expectStatus(await post('{}', bearer(project.apiKey)), 415, 3, 'unsupported_media_type');
  });

  it('accepts media type parameters and any case', async () => {
    const response = await post('{}', { ...bearer(project.apiKey), 'content-type': 'Application/JSON; charset=utf-8' });
    expect(response.statusCode).toBe(200);
  });

  it('refuses bytes that are no export request with 400 and a protobuf Status', async () => {
    const response = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), { ...bearer(project.apiKey), ...PROTOBUF });
    expect(response.headers['content-type']).toBe('application/x-protobuf');
    expectStatus(response, 400, 3, 'invalid_request');
    expect(decodeStatus(response.rawPayload).message).toMatch(/cannot be decoded/);
  });

  it.each([
    ['invalid JSON', '{"resourceSpans": [', 'malformed_json'],
    ['a JSON array', '[]', 'invalid_request'],
    ['resourceSpans not an array', '{"resourceSpans": 5}', 'invalid_request'],
    ['a span id that is not hex', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ spanId: 'zz' }] }] }] }), 'invalid_request'],
    ['a time that is no integer', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ startTimeUnixNano: { a: 1 } }] }] }] }), 'invalid_request'],
  ])('refuses %s with 400', async (_label, body, code) => {
    expectStatus(await post(body, { ...bearer(project.apiKey), ...JSON_CT }), 400, 3, code);
  });

  it('refuses attribute values nested deeper than 64 levels with 400', async () => {
    let value: object = { stringValue: 'deep' };
    for (let i = 0; i < 70; i++) value = { kvlistValue: { values: [{ key: 'k', value }] } };
    const body = { resourceSpans: [{ scopeSpans: [{ spans: [{ name: 's', attributes: [{ key: 'jtrace.metadata', value }] }] }] }] };
    expectStatus(await post(JSON.stringify(body), { ...bearer(project.apiKey), ...JSON_CT }), 400, 3, 'invalid_request');
  });
});

describe('credentials', () => {
  const body = () => toProtobuf('traces', journeySpan(`jrn_key_${hexId(8)}`));

  it.each([
    ['no key', {}],
    ['an unknown key', bearer('jt_live_unknown_0123456789abcdefghijklmnopqrstuv')],
    ['the admin token', bearer(TEST_ADMIN_TOKEN)],
    ['a key without the Bearer scheme', { authorization: 'placeholder' }],
    ['an unknown x-service-api-key', { 'x-service-api-key': 'jt_live_unknown_0123456789abcdefghijklmnopqrstuv' }],
  ])('refuses %s with 401 before reading the body', async (_label, headers) => {
    const before = await events();
    const response = await post(body(), { ...headers, ...PROTOBUF });
    expectStatus(response, 401, 16, 'unauthorized');
    expect(await events()).toBe(before);
  });

  it('answers 401 before decoding: a malformed body with a bad key is a credential refusal', async () => {
    expectStatus(await post('{"resourceSpans":', { ...JSON_CT }), 401, 16, 'unauthorized');
  });

  it('accepts the key in x-service-api-key', async () => {
    const response = await post(body(), { 'x-service-api-key': project.apiKey, ...PROTOBUF });
    expect(response.statusCode).toBe(200);
  });

  it.each([
    ['a valid Authorization and another x-service-api-key', () => ({ ...bearer(project.apiKey), 'x-service-api-key': 'jt_live_unknown_0123456789abcdefghijklmnopqrstuv' })],
    ['a valid x-service-api-key and another Authorization', () => ({ ...bearer('jt_live_unknown_0123456789abcdefghijklmnopqrstuv'), 'x-service-api-key': project.apiKey })],
    ['a valid x-service-api-key and an Authorization without the scheme', () => ({ authorization: project.apiKey, 'x-service-api-key': project.apiKey })],
  ])('refuses two different credentials with 401: %s', async (_label, headers) => {
    const before = await events();
    expectStatus(await post(body(), { ...headers(), ...PROTOBUF }), 401, 16, 'unauthorized');
    expect(await events()).toBe(before);
  });

  it('accepts the same key in both headers', async () => {
    const response = await post(body(), { ...bearer(project.apiKey), 'x-service-api-key': ` ${project.apiKey} `, ...PROTOBUF });
    expect(response.statusCode).toBe(200);
  });

  it('refuses a repeated x-service-api-key with 401, even when the first is valid', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' }).catch(() => undefined);
    const { port } = app.server.address() as AddressInfo;
    const payload = body();
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', headers: [
        'host', '127.0.0.1', 'content-type', 'application/x-protobuf', 'x-service-api-key', project.apiKey, 'x-service-api-key', 'other', 'content-length', String(payload.length),
      ] }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end(payload);
    });
    expect(status).toBe(401);
  });
});

describe('a database outage', () => {
  it('answers 503 database_unavailable and logs a warning, as the other routes do', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'debug' }, new Writable({
      write(chunk, _encoding, callback) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        callback();
      },
    }));
    const deadPool = createPool({ connectionString: `postgres://nobody:x@127.0.0.1:${await freePort()}/none`, max: 2, statementTimeoutMs: 0 });
    const outage = await buildApp({
      config: testConfig({ otlpEnabled: true }), pool: deadPool, keyring, adminToken: TEST_ADMIN_TOKEN, logger,
      metrics: createMetrics(deadPool), build: { version: '0.0.0', source: 'package' },
    });
    try {
      const response = await outage.inject({ method: 'POST', url: '/v1/traces', payload: '{}', headers: { ...bearer(project.apiKey), ...JSON_CT } });
      expectStatus(response, 503, 14, 'database_unavailable');
      expect(response.headers['retry-after']).toBe('5');
      const unavailable = lines.filter((l) => l.msg === 'database unavailable');
      expect(unavailable).toHaveLength(1);
      expect(unavailable[0]!.level).toBe(40);
      expect(lines.some((l) => (l.level as number) >= 50)).toBe(false);
    } finally {
      await outage.close();
      await deadPool.end();
    }
  });
});

describe('OTLP_ENABLED', () => {
  it('serves no OTLP route unless enabled', async () => {
    const { app: disabled } = await buildTestApp(db.pool, { keyring });
    try {
      const response = await disabled.inject({ method: 'POST', url: '/v1/traces', payload: '{}', headers: { ...bearer(project.apiKey), ...JSON_CT } });
      expect(response.statusCode).toBe(404);
    } finally {
      await disabled.close();
    }
  });
});
