import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDeps } from '../app.ts';
import { createApiKey, revokeApiKeyByPrefix } from '../auth/api-key-service.ts';
import { generateApiKey } from '../crypto/api-keys.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { requestBodyLimitBytes } from '../protocol/limits.ts';
import { NO_TRACE, countRows, journeyTrace as traceOf, testEnvelope as envelope } from './test-fixtures.ts';

/**
 * Ingestion through HTTP beyond the conformance cases: the single route's answers, the
 * request-level order of event protocol 1.5, limits, credentials and metrics. What a stored or
 * refused event leaves in the database is in ingest-storage.int.test.ts.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const MAX_EVENT_BYTES = 2048;
const BODY_LIMIT = requestBodyLimitBytes(MAX_EVENT_BYTES);
const JSON_CT = { 'content-type': 'application/json' };
const ROUTES = ['/v1/events', '/v1/events/batch'] as const;

let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;
let stagingKey: string;
let revokedKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app } = await buildTestApp(db.pool, { keyring, config: { maxEventPayloadBytes: MAX_EVENT_BYTES } }));
  project = await seedProject(db.pool, keyring, 'acme');
  const newKey = (environmentName: string) =>
    createApiKey(db.pool, keyring, { projectSlug: 'acme', environmentName, name: environmentName, defaultRetentionDays: 30 });
  stagingKey = (await newKey('staging')).apiKey;
  const revoked = await newKey('production');
  await revokeApiKeyByPrefix(db.pool, revoked.keyPrefix);
  revokedKey = revoked.apiKey;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});


/** A request with exactly the headers given (no implicit content type). */
function raw(url: string, payload: string | Buffer | undefined, headers: Record<string, string>, target = app) {
  const options: InjectOptions = { method: 'POST', url, headers, ...(payload !== undefined ? { payload } : {}) };
  return target.inject(options);
}
function send(url: string, body: unknown, key: string | null = project.apiKey, target = app) {
  return raw(url, JSON.stringify(body), { ...JSON_CT, ...(key ? bearer(key) : {}) }, target);
}
/** Sends `size` bytes with Transfer-Encoding: chunked, so the server cannot know the size up front. */
function postChunked(port: number, path: string, headers: Record<string, string>, size: number) {
  return new Promise<{ status: number; code: string }>((resolve, reject) => {
    const chunked = { ...headers, 'transfer-encoding': 'chunked' };
    const request = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: chunked }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, code: (JSON.parse(body) as { error: { code: string } }).error.code }));
    });
    // The server may answer and close before the whole body is written: that is the point.
    request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    let written = 0;
    const writeMore = () => {
      while (written < size) {
        const chunk = Buffer.alloc(Math.min(16_384, size - written), 0x78);
        written += chunk.length;
        if (!request.write(chunk)) return void request.once('drain', writeMore);
      }
      request.end();
    };
    writeMore();
  });
}

/** The body to send to a route for one envelope. */
const bodyFor = (route: string, env: unknown) => (route === '/v1/events' ? env : { events: [env] });

function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body.slice(0, 300)).toBe(status);
  const { error } = response.json() as { error: { code: string; message: string; requestId: string; details?: Array<{ path: string }> } };
  expect(error.code).toBe(code);
  expect(error.requestId).toBe(response.headers['x-request-id']);
  expect(typeof error.message).toBe('string');
  return error;
}

const count = (sql: string, params: unknown[]) => countRows(db.pool, sql, params);
const journeyTrace = (journeyId: string) => traceOf(db.pool, project.projectId, journeyId);

describe('POST /v1/events', () => {
  it('answers 202 with the verdict, and duplicate true for a resend', async () => {
    const env = envelope();
    const first = await send('/v1/events', env);
    expect(first.statusCode).toBe(202);
    const { id, journeyId } = env.event as { id: string; journeyId: string };
    expect(first.json()).toEqual({ data: { eventId: id, journeyId, status: 'accepted', duplicate: false } });
    const again = await send('/v1/events', env);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ data: { eventId: id, journeyId, status: 'accepted', duplicate: true } });
  });

  it('answers a refused event with its own status and error body', async () => {
    const invalid = expectError(await send('/v1/events', envelope({ entity: undefined, operation: 'exploded' })), 400, 'invalid_event');
    expect(invalid.details!.map((d) => d.path)).toEqual(['event.entity', 'event.operation']);
    expectError(await send('/v1/events', { protocolVersion: '9.9', event: {} }), 400, 'unsupported_protocol_version');
    const other = expectError(await send('/v1/events', envelope({ environment: 'staging' })), 403, 'unauthorized_environment');
    expect(other.details?.[0]?.path).toBe('event.environment');

    const stored = envelope();
    await send('/v1/events', stored);
    expectError(await send('/v1/events', { ...stored, event: { ...stored.event, name: 'changed' } }), 409, 'event_id_conflict');

    const owned = envelope({ environment: 'staging' });
    expect((await send('/v1/events', owned, stagingKey)).statusCode).toBe(202);
    const mismatch = expectError(
      await send('/v1/events', envelope({ journeyId: owned.event.journeyId })),
      409,
      'journey_environment_mismatch',
    );
    expect(mismatch.message).not.toContain('staging');
  });
});

describe('request-level order (1.5), on both routes', () => {
  it.each(ROUTES)('%s: 413 for a body over the limit, before the media type, JSON and the key', async (route) => {
    const big = 'x'.repeat(BODY_LIMIT + 1);
    expectError(await raw(route, big, { 'content-type': 'application/xml', ...bearer('nope') }), 413, 'payload_too_large');
    expectError(await raw(route, big, { ...JSON_CT, ...bearer('nope') }), 413, 'payload_too_large');
    expectError(await raw(route, big, {}), 413, 'payload_too_large');
  });

  it.each(ROUTES)('%s: 413 also for a chunked body (size not declared) of another or no media type; empty without one is malformed', async (route) => {
    const { app: listening } = await buildTestApp(db.pool, { keyring, config: { maxEventPayloadBytes: MAX_EVENT_BYTES } });
    await listening.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = listening.server.address() as AddressInfo;
      for (const type of ['application/xml', undefined, 'application/json']) {
        const answer = await postChunked(port, route, { ...(type ? { 'content-type': type } : {}), ...bearer('nope') }, BODY_LIMIT + 1);
        expect([answer.status, answer.code], String(type)).toEqual([413, 'payload_too_large']);
      }
      const small = await postChunked(port, route, { 'content-type': 'application/xml' }, 100);
      expect([small.status, small.code]).toEqual([415, 'unsupported_media_type']);
      const empty = await postChunked(port, route, bearer('nope'), 0);
      expect([empty.status, empty.code]).toEqual([400, 'malformed_json']);
    } finally {
      await listening.close();
    }
  });

  it.each(ROUTES)('%s: 415 for another media type or a body without one, before JSON and the key', async (route) => {
    for (const type of ['application/xml', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      expectError(await raw(route, '{not json', { 'content-type': type, ...bearer('nope') }), 415, 'unsupported_media_type');
    }
    expectError(await raw(route, '{}', bearer(project.apiKey)), 415, 'unsupported_media_type');
  });

  it.each(ROUTES)('%s: malformed_json before the query and the key', async (route) => {
    const badUtf8 = Buffer.concat([Buffer.from('{"events":["'), Buffer.from([0xc3]), Buffer.from('"]}')]);
    for (const payload of ['', '{', '{"events":[}', badUtf8]) {
      expectError(await raw(`${route}?dryrun=1`, payload, { ...JSON_CT, ...bearer('nope') }), 400, 'malformed_json');
    }
    expectError(await raw(`${route}?dryrun=1`, undefined, bearer('nope')), 400, 'malformed_json');
    expectError(await raw(route, undefined, {}), 400, 'malformed_json');
  });

  it.each(ROUTES)('%s: text/plain is read as a string and refused as invalid_event, never 415', async (route) => {
    const response = await raw(route, JSON.stringify(bodyFor(route, envelope())), { 'content-type': 'text/plain', ...bearer(project.apiKey) });
    expect(expectError(response, 400, 'invalid_event').details?.length).toBeGreaterThan(0);
  });

  it.each([
    ['/v1/events/batch?dryrun=true', 'dryrun'],
    ['/v1/events/batch?dryRun=true&dryRun=true', 'dryRun'],
    ['/v1/events/batch?dryRun=false&dryRun=false', 'dryRun'],
    ['/v1/events/batch?dryRun=1', 'dryRun'],
    ['/v1/events/batch?dryRun=TRUE', 'dryRun'],
    ['/v1/events/batch?dryRun=', 'dryRun'],
    ['/v1/events/batch?dryRun', 'dryRun'],
    ['/v1/events/batch?other=1&dryRun=true', 'other'],
    ['/v1/events?dryRun=false', 'dryRun'],
    ['/v1/events?x=1', 'x'],
  ])('%s: invalid_query naming %s, before the key', async (url, path) => {
    const body = bodyFor(url.split('?')[0]!, envelope());
    expect(expectError(await send(url, body, 'nope'), 400, 'invalid_query').details?.[0]?.path).toBe(path);
    expect(expectError(await send(url, body), 400, 'invalid_query').details?.[0]?.path).toBe(path);
  });

  it('accepts dryRun=false as a real send', async () => {
    const env = envelope();
    const response = await send('/v1/events/batch?dryRun=false', { events: [env] });
    expect(response.statusCode).toBe(202);
    expect((await journeyTrace(env.event.journeyId as string)).events).toBe(1);
  });

  it.each(ROUTES)('%s: 401 for a missing, malformed, unknown, revoked key and for the admin token', async (route) => {
    const env = envelope();
    const headers: Array<Record<string, string>> = [
      {}, { authorization: `Basic ${project.apiKey}` }, { authorization: `Bearer ${project.apiKey} ` },
      { authorization: `Bearer  ${project.apiKey}` }, bearer(generateApiKey().secret), bearer(revokedKey), bearer(TEST_ADMIN_TOKEN),
    ];
    for (const header of headers) {
      expectError(await raw(route, JSON.stringify(bodyFor(route, env)), { ...JSON_CT, ...header }), 401, 'unauthorized');
    }
    expect(await journeyTrace(env.event.journeyId as string)).toEqual(NO_TRACE);
  });

  it('batch: events missing or not an array is invalid_event; 101 events is payload_too_large with none stored', async () => {
    for (const body of [{}, { events: {} }, { events: 'x' }, { events: null }, [], null, 'events', 7]) {
      expectError(await send('/v1/events/batch', body), 400, 'invalid_event');
    }
    const envs = Array.from({ length: 101 }, () => envelope());
    expectError(await send('/v1/events/batch', { events: envs }), 400, 'payload_too_large');
    expectError(await send('/v1/events/batch?dryRun=true', { events: envs }), 400, 'payload_too_large');
    expect(await count('events WHERE id = ANY($1::text[])', [envs.map((e) => e.event.id)])).toBe(0);
    const empty = await send('/v1/events/batch', { events: [], other: 'ignored' });
    expect([empty.statusCode, empty.json()]).toEqual([202, { data: { results: [] } }]);
  });
});

/** An envelope whose compact JSON is exactly `bytes` long (padding in metadata). */
function envelopeOfSize(bytes: number) {
  const env = envelope({ metadata: { pad: '' } });
  const pad = bytes - Buffer.byteLength(JSON.stringify(env));
  (env.event.metadata as { pad: string }).pad = 'é'.repeat(Math.floor(pad / 2)) + 'p'.repeat(pad % 2);
  expect(Buffer.byteLength(JSON.stringify(env))).toBe(bytes);
  return env;
}

describe('MAX_EVENT_PAYLOAD_BYTES', () => {
  it('refuses an envelope just over the limit alone; its neighbours and one exactly at it are accepted', async () => {
    const [before, over, at] = [envelope(), envelopeOfSize(MAX_EVENT_BYTES + 1), envelopeOfSize(MAX_EVENT_BYTES)];
    const response = await send('/v1/events/batch', { events: [before, over, at] });
    expect(response.statusCode).toBe(202);
    const results = response.json().data.results;
    expect(results.map((r: { status: string }) => r.status)).toEqual(['accepted', 'rejected', 'accepted']);
    expect(results[1]).toMatchObject({ eventId: over.event.id, error: { code: 'payload_too_large', httpStatus: 400 } });
    expect(await journeyTrace(over.event.journeyId as string)).toEqual(NO_TRACE);
    expectError(await send('/v1/events', envelopeOfSize(MAX_EVENT_BYTES + 1)), 400, 'payload_too_large');
  });
});

describe('credentials', () => {
  it('ingestion is never throttled and never answers 429', async () => {
    const { app: fresh } = await buildTestApp(db.pool, { keyring });
    try {
      for (let i = 0; i < 12; i++) {
        const route = ROUTES[i % 2]!;
        const response = await send(route, bodyFor(route, envelope()), i % 3 === 0 ? generateApiKey().secret : 'nope', fresh);
        expectError(response, 401, 'unauthorized');
      }
      const admin = { method: 'GET' as const, url: '/v1/projects', headers: bearer(TEST_ADMIN_TOKEN) };
      expect((await fresh.inject(admin)).statusCode).toBe(200);
      // Lock the address through an admin route: ingestion still answers by the key alone.
      for (let i = 0; i < 5; i++) await fresh.inject({ ...admin, headers: bearer(`wrong-admin-token-${i}`) });
      expect((await fresh.inject(admin)).statusCode).toBe(429);
      for (const route of ROUTES) {
        expect((await send(route, bodyFor(route, envelope()), project.apiKey, fresh)).statusCode).toBe(202);
        expectError(await send(route, bodyFor(route, envelope()), 'nope', fresh), 401, 'unauthorized');
      }
    } finally {
      await fresh.close();
    }
  });

  it('refuses a key whose hash was written under another encryption key', async () => {
    const keyringA = createKeyring({ current: 'A-encryption-key-0123456789abcdefghijklmnop' });
    const keyringB = createKeyring({ current: 'B-encryption-key-0123456789abcdefghijklmnop' });
    const other = await seedProject(db.pool, keyringA, 'rotated-away');
    const { app: appA } = await buildTestApp(db.pool, { keyring: keyringA });
    const { app: appB } = await buildTestApp(db.pool, { keyring: keyringB });
    try {
      expect((await send('/v1/events', envelope(), other.apiKey, appA)).statusCode).toBe(202);
      for (const route of ROUTES) {
        expectError(await send(route, bodyFor(route, envelope()), other.apiKey, appB), 401, 'unauthorized');
      }
    } finally {
      await appA.close();
      await appB.close();
    }
  });
});

describe('service_events_total', () => {
  it('counts accepted, duplicate and rejected events of real sends, and nothing for dry runs', async () => {
    const { app: fresh, deps } = await buildTestApp(db.pool, { keyring });
    const counts = async (d: AppDeps) =>
      Object.fromEntries((await d.metrics.events.get()).values.map((v) => [v.labels.result, v.value]));
    try {
      const [a, b, c] = [envelope(), envelope(), envelope()];
      const batch = await send('/v1/events/batch', { events: [a, b, a, envelope({ operation: 'nope' })] }, project.apiKey, fresh);
      expect(batch.statusCode).toBe(202);
      await send('/v1/events', c, project.apiKey, fresh);
      await send('/v1/events', c, project.apiKey, fresh);
      await send('/v1/events', { ...c, event: { ...c.event, name: 'other' } }, project.apiKey, fresh);
      expect(await counts(deps)).toEqual({ accepted: 3, duplicate: 2, rejected: 2 });
      const dry = await send('/v1/events/batch?dryRun=true', { events: [envelope(), a, envelope({ name: '' })] }, project.apiKey, fresh);
      expect(dry.statusCode).toBe(200);
      await send('/v1/events/batch', { events: [envelope()] }, 'nope', fresh);
      await send('/v1/events/batch', { events: 'no' }, project.apiKey, fresh);
      expect(await counts(deps)).toEqual({ accepted: 3, duplicate: 2, rejected: 2 });
    } finally {
      await fresh.close();
    }
  });
});
