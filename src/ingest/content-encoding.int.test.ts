import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { requestBodyLimitBytes } from '../protocol/limits.ts';
import { isEncoded } from './routes.ts';
import { testEnvelope } from './test-fixtures.ts';

/** Ingestion decodes no Content-Encoding: an encoded body is 415, after its size (event protocol 1.5). */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const MAX_EVENT_BYTES = 2048;
const ROUTES = ['/v1/events', '/v1/events/batch'] as const;
let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app } = await buildTestApp(db.pool, { keyring, config: { maxEventPayloadBytes: MAX_EVENT_BYTES } }));
  project = await seedProject(db.pool, keyring, 'encodings');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

let counter = 0;
function body(route: string): string {
  counter += 1;
  const envelope = testEnvelope({ id: `evt-enc-${counter}`, journeyId: `jrn-enc-${counter}` });
  return JSON.stringify(route === '/v1/events' ? envelope : { events: [envelope] });
}

function post(url: string, payload: string | Buffer, headers: Record<string, string>) {
  return app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });
}

function expect415(response: { statusCode: number; json: () => { error: { code: string } } }) {
  expect(response.statusCode).toBe(415);
  expect(response.json().error.code).toBe('unsupported_media_type');
}

describe.each(ROUTES)('Content-Encoding on %s', (route) => {
  it('refuses a gzip body with 415, with or without a valid key', async () => {
    const gzipped = gzipSync(body(route));
    expect415(await post(route, gzipped, { 'content-encoding': 'gzip', ...bearer(project.apiKey) }));
    expect415(await post(route, gzipped, { 'content-encoding': 'gzip' }));
  });

  it('refuses plain JSON labelled with an encoding instead of storing it', async () => {
    for (const coding of ['br', 'deflate', 'GZIP', 'identity, gzip', 'x-anything']) {
      expect415(await post(route, body(route), { 'content-encoding': coding, ...bearer(project.apiKey) }));
    }
  });

  it('accepts identity, in any case, and a blank header', async () => {
    for (const coding of ['identity', 'Identity', ' ']) {
      const response = await post(route, body(route), { 'content-encoding': coding, ...bearer(project.apiKey) });
      expect(response.statusCode, response.body).toBe(202);
    }
  });

  it('answers the size first: an encoded body over the limit is 413, declared or not', async () => {
    const big = Buffer.alloc(requestBodyLimitBytes(MAX_EVENT_BYTES) + 1, 0x20);
    for (const payload of [big, Readable.from([big])]) {
      const response = await app.inject({
        method: 'POST',
        url: route,
        payload,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...bearer(project.apiKey) },
      });
      expect(response.statusCode).toBe(413);
      expect(response.json().error.code).toBe('payload_too_large');
    }
    // Undeclared and within the limit: 415.
    expect415(await app.inject({ method: 'POST', url: route, payload: Readable.from([Buffer.from(body(route))]), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }));
  });
});

describe('isEncoded', () => {
  it('is true exactly when some listed coding is not identity', () => {
    const token = fc.oneof(fc.constantFrom('identity', 'IDENTITY', ' identity ', '', 'gzip', 'br', 'deflate', 'compress', 'zstd'), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(fc.array(token, { maxLength: 4 }), (codings) => {
        const pieces = codings.join(',').split(',').map((p) => p.trim().toLowerCase());
        expect(isEncoded(codings.join(','))).toBe(pieces.some((p) => p !== '' && p !== 'identity'));
      }),
    );
    expect(isEncoded(undefined)).toBe(false);
    expect(isEncoded(['identity', 'gzip'])).toBe(true);
  });
});
