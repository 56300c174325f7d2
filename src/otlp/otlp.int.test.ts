import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { otlpRoot } from './otlp-proto.ts';
import { hexId, jsonLogs, jsonTraces, toProtobuf, type SpanSpec } from './test-payloads.ts';

/**
 * The OTLP/HTTP routes through inject: both encodings, the mapping onto protocol 0.1 events,
 * duplicates on a retried export, skipped records and partial success. Body refusals (size,
 * gzip, media type, malformed bodies, credentials) are in otlp-refusals.int.test.ts.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const PROTOBUF = { 'content-type': 'application/x-protobuf' };
const JSON_CT = { 'content-type': 'application/json' };
const traceResponse = otlpRoot.collector.trace.v1.ExportTraceServiceResponse;
const logsResponse = otlpRoot.collector.logs.v1.ExportLogsServiceResponse;

let db: TestDatabase;
let app: FastifyInstance;
let metrics: Metrics;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  const built = await buildTestApp(db.pool, { keyring, config: { otlpEnabled: true } });
  app = built.app;
  metrics = built.deps.metrics;
  project = await seedProject(db.pool, keyring, 'otel');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

function post(signal: 'traces' | 'logs', payload: Buffer | string, headers: Record<string, string>) {
  return app.inject({ method: 'POST', url: `/v1/${signal}`, payload, headers: { ...bearer(project.apiKey), ...headers } });
}

async function counted(signal: string, result: string): Promise<number> {
  const metric = await metrics.otlpRecords.get();
  return metric.values.find((v) => v.labels.signal === signal && v.labels.result === result)?.value ?? 0;
}

async function journeyEvents(journeyId: string) {
  const response = await app.inject({ method: 'GET', url: `/v1/journeys/${journeyId}/events`, headers: bearer(project.apiKey) });
  expect(response.statusCode).toBe(200);
  return (response.json() as { data: { items: Array<Record<string, unknown>> } }).data.items;
}

async function eventDetail(eventId: string) {
  const response = await app.inject({ method: 'GET', url: `/v1/events/${encodeURIComponent(eventId)}`, headers: bearer(project.apiKey) });
  expect(response.statusCode).toBe(200);
  return (response.json() as { data: Record<string, unknown> }).data;
}

async function journey(journeyId: string) {
  const response = await app.inject({ method: 'GET', url: `/v1/journeys/${journeyId}`, headers: bearer(project.apiKey) });
  expect(response.statusCode).toBe(200);
  return (response.json() as { data: Record<string, unknown> }).data;
}

/** A checkout trace: a root span with two children, the second failing. */
function checkoutSpans(journeyId: string, entityId: string): SpanSpec[] {
  const traceId = hexId(16);
  const root = hexId(8);
  const journeyAttributes = { 'jtrace.journey.id': journeyId, 'jtrace.entity.type': 'order', 'jtrace.entity.id': entityId };
  return [
    {
      traceId, spanId: hexId(8), parentSpanId: root, name: 'validate order', startMs: Date.UTC(2026, 7, 6, 16, 31, 2, 120), durationMs: 42,
      attributes: {
        ...journeyAttributes, 'jtrace.operation': 'validated', 'jtrace.input': '{"sku":"A-1","qty":2}',
        'jtrace.aliases': '{"email":"someone@example.com"}', 'jtrace.displayable_aliases': ['email'],
        'jtrace.metadata': { attempt: 1, region: 'eu' }, 'jtrace.journey.label': 'Order 1001',
      },
    },
    {
      traceId, spanId: hexId(8), parentSpanId: root, name: 'charge card', startMs: Date.UTC(2026, 7, 6, 16, 31, 2, 200), durationMs: 80,
      attributes: { ...journeyAttributes, 'jtrace.operation': 'delivered', 'jtrace.name': 'payment' },
      status: { code: 2, message: 'card declined' },
    },
    {
      traceId, spanId: root, name: 'POST /checkout', startMs: Date.UTC(2026, 7, 6, 16, 31, 2, 100), durationMs: 300,
      attributes: { ...journeyAttributes, 'jtrace.operation': 'received' },
    },
    // No journey attributes: skipped, not refused.
    { traceId, spanId: hexId(8), parentSpanId: root, name: 'SELECT orders', startMs: Date.UTC(2026, 7, 6, 16, 31, 2, 150), durationMs: 3 },
  ];
}

describe.each([
  ['protobuf', PROTOBUF, (json: object) => toProtobuf('traces', json)],
  ['JSON', JSON_CT, (json: object) => JSON.stringify(json)],
] as const)('POST /v1/traces with %s', (label, headers, encode) => {
  it('turns spans with journey attributes into events of one journey and skips the rest', async () => {
    const journeyId = `jrn_${label}_${hexId(8)}`;
    const spans = checkoutSpans(journeyId, `ord-${label}`);
    const skippedBefore = await counted('traces', 'skipped');
    const acceptedBefore = await counted('traces', 'accepted');
    const response = await post('traces', encode(jsonTraces('checkout', spans)), headers);
    expect(response.statusCode).toBe(200);
    if (label === 'protobuf') {
      expect(response.headers['content-type']).toBe('application/x-protobuf');
      expect(traceResponse.decode(response.rawPayload).partialSuccess ?? null).toBeNull();
    } else {
      expect(response.json()).toEqual({});
    }
    expect(await counted('traces', 'accepted')).toBe(acceptedBefore + 3);
    expect(await counted('traces', 'skipped')).toBe(skippedBefore + 1);

    const events = await journeyEvents(journeyId);
    expect(events.map((e) => [e.name, e.operation, e.service, e.eventTimestamp, e.durationMs, e.hasError])).toEqual([
      ['POST /checkout', 'received', 'checkout', '2026-08-06T16:31:02.100Z', 300, false],
      ['validate order', 'validated', 'checkout', '2026-08-06T16:31:02.120Z', 42, false],
      ['payment', 'delivered', 'checkout', '2026-08-06T16:31:02.200Z', 80, true],
    ]);
    const [root, validate, charge] = events.map((e) => e.id as string);
    expect(root).toBe(`otel-span-${spans[2]!.traceId}-${spans[2]!.spanId}`);
    const detail = await eventDetail(validate!);
    expect(detail).toMatchObject({
      parentEventId: root,
      traceId: spans[0]!.traceId,
      spanId: spans[0]!.spanId,
      customMetadata: { attempt: 1, region: 'eu' },
      aliases: [{ type: 'email', displayValue: 'someone@example.com', displayable: true }],
    });
    expect((await eventDetail(charge!)).error).toMatchObject({ message: 'card declined' });

    const summary = await journey(journeyId);
    expect(summary).toMatchObject({ status: 'failed', failedStep: 'payment', label: 'Order 1001', eventCount: 3 });
    const search = await app.inject({ method: 'GET', url: `/v1/search?q=ord-${label}`, headers: bearer(project.apiKey) });
    expect((search.json() as { data: { items: Array<{ journeyId: string }> } }).data.items.map((j) => j.journeyId)).toEqual([journeyId]);
  });

  it('counts a retried export as duplicates and stores nothing twice', async () => {
    const journeyId = `jrn_retry_${label}_${hexId(8)}`;
    const body = encode(jsonTraces('checkout', checkoutSpans(journeyId, 'ord-retry')));
    expect((await post('traces', body, headers)).statusCode).toBe(200);
    const duplicatesBefore = await counted('traces', 'duplicate');
    expect((await post('traces', body, headers)).statusCode).toBe(200);
    expect(await counted('traces', 'duplicate')).toBe(duplicatesBefore + 3);
    expect(await journeyEvents(journeyId)).toHaveLength(3);
  });

  it('answers partialSuccess with the rejected count and the first refusal codes', async () => {
    const journeyId = `jrn_partial_${label}_${hexId(8)}`;
    const spans = checkoutSpans(journeyId, 'ord-partial');
    spans[0]!.attributes!['jtrace.operation'] = 'teleported';
    spans[1]!.attributes!['jtrace.entity.id'] = '';
    const response = await post('traces', encode(jsonTraces('checkout', spans)), headers);
    expect(response.statusCode).toBe(200);
    const partial =
      label === 'protobuf'
        ? (traceResponse.toObject(traceResponse.decode(response.rawPayload), { longs: String }) as { partialSuccess: object }).partialSuccess
        : (response.json() as { partialSuccess: object }).partialSuccess;
    expect(partial).toEqual({ rejectedSpans: '2', errorMessage: '2 record(s) refused: invalid_event' });
    expect(await journeyEvents(journeyId)).toHaveLength(1);
  });
});

describe('POST /v1/traces mapping', () => {
  it('takes the event id and an exception event from the span, and the service from the resource', async () => {
    const journeyId = `jrn_map_${hexId(8)}`;
    const spans: SpanSpec[] = [
      {
        traceId: hexId(16), spanId: hexId(8), name: 'ship', startMs: Date.UTC(2026, 7, 6, 10), durationMs: 5,
        attributes: {
          'jtrace.journey.id': journeyId, 'jtrace.entity.type': 'order', 'jtrace.entity.id': 4711, 'jtrace.operation': 'failed',
          'jtrace.event.id': 'evt_custom_1', 'jtrace.output': 'plain text, not JSON',
        },
        events: [{ name: 'exception', attributes: { 'exception.type': 'TimeoutError', 'exception.message': 'carrier timed out', 'exception.stacktrace': 'at ship()' } }],
      },
    ];
    expect((await post('traces', toProtobuf('traces', jsonTraces(null, spans)), PROTOBUF)).statusCode).toBe(200);
    const detail = await eventDetail('evt_custom_1');
    expect(detail).toMatchObject({
      service: 'unknown_service',
      // The stack is kept only under full capture (event protocol section 5).
      error: { type: 'TimeoutError', message: 'carrier timed out' },
    });
    expect((await journey(journeyId)).entity).toEqual({ type: 'order', id: '4711' });
  });

  it('accepts an empty export', async () => {
    const response = await post('traces', Buffer.alloc(0), PROTOBUF);
    expect(response.statusCode).toBe(200);
    expect((await post('traces', '{}', JSON_CT)).json()).toEqual({});
  });
});

describe('POST /v1/logs', () => {
  it('turns log records with journey attributes into events, a retried export into duplicates', async () => {
    const journeyId = `jrn_logs_${hexId(8)}`;
    const attributes = { 'jtrace.journey.id': journeyId, 'jtrace.entity.type': 'invoice', 'jtrace.entity.id': 'inv-9', 'jtrace.operation': 'persisted' };
    const json = jsonLogs('billing', [
      { timeMs: Date.UTC(2026, 7, 6, 9), body: 'invoice stored', attributes: { ...attributes, 'jtrace.name': 'store invoice' } },
      { timeMs: Date.UTC(2026, 7, 6, 9, 1), severityNumber: 17, body: 'mail bounced', attributes: { ...attributes, 'jtrace.operation': 'delivered' } },
      { timeMs: Date.UTC(2026, 7, 6, 9, 2), body: 'unrelated' },
    ]);
    const response = await post('logs', toProtobuf('logs', json), PROTOBUF);
    expect(response.statusCode).toBe(200);
    expect(logsResponse.decode(response.rawPayload).partialSuccess ?? null).toBeNull();
    const events = await journeyEvents(journeyId);
    expect(events.map((e) => [e.name, e.service, e.hasError])).toEqual([
      ['store invoice', 'billing', false],
      ['log', 'billing', true],
    ]);
    expect((await eventDetail(events[1]!.id as string)).error).toMatchObject({ message: 'mail bounced' });

    // The same records as OTLP JSON are the same events: the derived ids do not depend on the encoding.
    const duplicatesBefore = await counted('logs', 'duplicate');
    expect((await post('logs', JSON.stringify(json), JSON_CT)).json()).toEqual({});
    expect(await counted('logs', 'duplicate')).toBe(duplicatesBefore + 2);
    expect(await journeyEvents(journeyId)).toHaveLength(2);
  });

  it('answers partialSuccess with rejectedLogRecords', async () => {
    const json = jsonLogs('billing', [{ timeMs: Date.UTC(2026, 7, 6, 9), attributes: { 'jtrace.journey.id': 'jrn_x' } }]);
    const response = await post('logs', JSON.stringify(json), JSON_CT);
    expect(response.json()).toEqual({ partialSuccess: { rejectedLogRecords: '1', errorMessage: '1 record(s) refused: invalid_event' } });
  });
});
