import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';

/**
 * Property: whatever hostile pieces a request is built from (NUL, unpaired surrogates, odd
 * timestamps, deep nesting, huge numbers, prototype keys, bad percent-encoding), the server
 * answers below 500, and every 4xx carries the error body of interface-spec section 7.
 * Runs against the real server and database through inject.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let apiKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app } = await buildTestApp(db.pool, { keyring }));
  apiKey = (await seedProject(db.pool, keyring, 'fuzz')).apiKey;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const PIECES = [
  '\u0000', '\uD800', '\uDC00', '\uDBFF\uDFFF', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty',
  '9'.repeat(400), '1e400', '-0', 'NaN', '2026-02-30T00:00:00Z', '0000-12-31T23:00:00-01:00', '9999-12-31T23:59:59.9999999-23:59',
  '2026-08-06T24:00:00Z', '2026-08-06T16:31:02.120', '%', '%zz', '%00', '%ff', '%C0%AF', '..', '/', '?', '#', '&', '=', '[', '{',
  '"', '\\', ' ', '\n', 'é', '😀', 'jrn_1', 'evt_1', 'production', '00000000-0000-0000-0000-000000000000', 'x'.repeat(600),
];

const hostileString = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 6 })), { maxLength: 4 })
  .map((parts) => parts.join(''));

const hugeNumber = fc.oneof(fc.double(), fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, 2 ** 31, -1, 0.5, Number.MAX_SAFE_INTEGER));

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  // A computed `__proto__` key is an own property, as JSON.parse makes it.
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { ['__proto__']: value };
  return value;
}

const { value: hostileValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hugeNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 3 }),
    fc.tuple(fc.nat({ max: 80 }), hostileString).map(([depth, leaf]) => nested(depth, leaf)),
  ),
}));

/** A field: usually plausible, often hostile. */
const field = (plausible: fc.Arbitrary<unknown>) => fc.oneof(plausible, plausible, hostileString, hostileValue);

const envelope = fc.record(
  {
    protocolVersion: field(fc.constant('0.1')),
    event: fc.record(
      {
        id: field(fc.uuid().map((u) => `evt_${u}`)),
        journeyId: field(fc.uuid().map((u) => `jrn_${u}`)),
        environment: field(fc.constant('production')),
        service: field(fc.constant('svc')),
        entity: field(fc.record({ type: field(fc.constant('order')), id: field(fc.constant('o-1')) })),
        operation: field(fc.constantFrom('started', 'completed', 'failed', 'retried', 'step')),
        name: field(fc.constant('step')),
        timestamp: field(fc.constant('2026-08-06T16:31:02.120Z')),
        aliases: field(fc.dictionary(hostileString, hostileString, { maxKeys: 3 })),
        displayableAliases: field(fc.array(hostileString, { maxLength: 3 })),
        durationMs: field(hugeNumber),
        input: hostileValue,
        metadata: field(fc.dictionary(hostileString, hostileValue, { maxKeys: 3 })),
        error: field(fc.record({ message: hostileString })),
      },
      { requiredKeys: ['id', 'journeyId', 'environment', 'service', 'entity', 'operation', 'name', 'timestamp'] },
    ),
  },
  { requiredKeys: [] },
);

/** Percent-encodes the UTF-8 of a string (an unpaired surrogate becomes U+FFFD), or leaves it raw. */
const urlPart = fc.oneof(
  hostileString.map((s) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  hostileString.map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, 'x'))),
  fc.constantFrom('%', '%zz', '%00', '%ff', '%E0%80', '..', '%2e%2e', '%2F'),
);

const queryString = fc
  .array(
    fc.tuple(fc.oneof(fc.constantFrom('q', 'since', 'until', 'limit', 'cursor', 'entityType', 'status', 'environment', 'value', 'dryRun'), urlPart), urlPart),
    { maxLength: 4 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

const admin = { ...bearer(TEST_ADMIN_TOKEN) };
const json = { 'content-type': 'application/json' };

function expectSpecAnswer(response: LightMyRequestResponse, what: string): void {
  expect(response.statusCode, `${what} → ${response.statusCode} ${response.body.slice(0, 200)}`).toBeLessThan(500);
  if (response.statusCode < 400) return;
  const body = response.json() as { error?: Record<string, unknown> };
  expect(body.error, what).toMatchObject({ code: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
  const details = body.error!.details;
  if (details !== undefined) {
    expect(Array.isArray(details), what).toBe(true);
    for (const detail of details as unknown[]) expect(detail, what).toMatchObject({ path: expect.any(String), message: expect.any(String) });
  }
}

const RUNS = { numRuns: Number(process.env.FUZZ_RUNS ?? 120) };

describe('hostile input never reaches a 5xx', () => {
  it('ingestion envelopes, single and batch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(envelope, { minLength: 1, maxLength: 4 }), fc.boolean(), async (envelopes, dryRun) => {
        const headers = { ...json, ...bearer(apiKey) };
        const single = await app.inject({ method: 'POST', url: '/v1/events', headers, payload: JSON.stringify(envelopes[0]) });
        expectSpecAnswer(single, 'POST /v1/events');
        const batch = await app.inject({
          method: 'POST',
          url: `/v1/events/batch${dryRun ? '?dryRun=true' : ''}`,
          headers,
          payload: JSON.stringify({ events: envelopes }),
        });
        expectSpecAnswer(batch, 'POST /v1/events/batch');
        if (batch.statusCode === 202 || batch.statusCode === 200) {
          for (const result of batch.json().data.results as Array<{ error?: { httpStatus: number } }>) {
            expect(result.error?.httpStatus ?? 0).toBeLessThan(500);
          }
        }
      }),
      RUNS,
    );
  });

  it('query strings and path ids of the read and delete routes', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, urlPart, async (query, id) => {
        const requests: Array<[('GET' | 'DELETE'), string]> = [
          ['GET', `/v1/search?${query}`],
          ['GET', `/v1/journeys?${query}`],
          ['GET', `/v1/journeys/${id}`],
          ['GET', `/v1/journeys/${id}/events?${query}`],
          ['GET', `/v1/events/${id}`],
          ['GET', `/v1/replays/${id}`],
          ['DELETE', `/v1/replay-destinations/${id}`],
          ['DELETE', `/v1/journeys/${id}?${query}`],
        ];
        for (const [method, url] of requests) {
          for (const headers of [admin, bearer(apiKey)]) {
            expectSpecAnswer(await app.inject({ method, url, headers }), `${method} ${url}`);
          }
        }
      }),
      RUNS,
    );
  });

  it('admin bodies: erasures, replay destinations and replays', async () => {
    const body = fc.oneof(
      fc.record({ value: field(hostileString), environment: field(hostileString), dryRun: field(fc.boolean()) }, { requiredKeys: [] }),
      fc.record(
        { name: field(hostileString), baseUrl: field(fc.constant('http://localhost:1/x')), environmentType: field(fc.constant('local')), headers: field(fc.dictionary(hostileString, hostileString, { maxKeys: 3 })) },
        { requiredKeys: [] },
      ),
      fc.record(
        { eventId: field(hostileString), destinationId: field(fc.uuid()), method: field(fc.constantFrom('POST', 'PUT')), path: field(hostileString) },
        { requiredKeys: [] },
      ),
      hostileValue,
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        for (const url of ['/v1/erasures', '/v1/replay-destinations', '/v1/replays']) {
          const response = await app.inject({ method: 'POST', url, headers: { ...json, ...admin }, payload: JSON.stringify(payload) });
          expectSpecAnswer(response, `POST ${url} ${JSON.stringify(payload).slice(0, 200)}`);
        }
      }),
      RUNS,
    );
  });
});
