import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { API_KEY_HEADER } from './routes.ts';

/**
 * End to end with the real OpenTelemetry JavaScript SDK: its tracer and logger, its OTLP/HTTP
 * exporters (protobuf and JSON) pointed at the server on a real port, read back through search.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });

let db: TestDatabase;
let app: FastifyInstance;
let metrics: Metrics;
let project: SeededProject;
let base: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const built = await buildTestApp(db.pool, { keyring, config: { otlpEnabled: true } });
  app = built.app;
  metrics = built.deps.metrics;
  project = await seedProject(db.pool, keyring, 'otel-sdk');
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

async function counted(signal: string, result: string): Promise<number> {
  const metric = await metrics.otlpRecords.get();
  return metric.values.find((v) => v.labels.signal === signal && v.labels.result === result)?.value ?? 0;
}

async function read<T>(path: string): Promise<T> {
  const response = await app.inject({ method: 'GET', url: path, headers: bearer(project.apiKey) });
  expect(response.statusCode, path).toBe(200);
  return (response.json() as { data: T }).data;
}

async function searchJourneys(entityId: string) {
  return (await read<{ items: Array<{ journeyId: string; status: string; eventCount: number; failedStep: string | null }> }>(`/v1/search?q=${entityId}`)).items;
}

function tracerProvider(exporter: SpanExporter, service = 'checkout') {
  return new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': service }), spanProcessors: [new BatchSpanProcessor(exporter)] });
}

/** A request handled in three spans; the payment fails. One database span carries no journey attributes. */
function recordCheckout(tracer: Tracer, journeyId: string, entityId: string) {
  const journey = { 'jtrace.journey.id': journeyId, 'jtrace.entity.type': 'order', 'jtrace.entity.id': entityId };
  const root = tracer.startSpan('POST /checkout', { attributes: { ...journey, 'jtrace.operation': 'received', 'jtrace.input': JSON.stringify({ sku: 'A-1' }) } });
  const context = trace.setSpan(ROOT_CONTEXT, root);
  tracer.startSpan('SELECT stock', {}, context).end();
  const payment = tracer.startSpan('charge card', { attributes: { ...journey, 'jtrace.operation': 'delivered' } }, context);
  payment.recordException(new Error('card declined'));
  payment.setStatus({ code: SpanStatusCode.ERROR, message: 'card declined' });
  payment.end();
  root.end();
}

describe.each([
  ['protobuf', () => new ProtoTraceExporter({ url: `${base}/v1/traces`, headers: { [API_KEY_HEADER]: project.apiKey } })],
  ['JSON', () => new JsonTraceExporter({ url: `${base}/v1/traces`, headers: bearer(project.apiKey) })],
] as const)('OpenTelemetry SDK traces over OTLP/HTTP %s', (label, exporter) => {
  it('stores the spans with journey attributes as one journey that search finds, failed after the ERROR span', async () => {
    const entityId = `ord-sdk-${label}`;
    const skipped = await counted('traces', 'skipped');
    const provider = tracerProvider(exporter());
    recordCheckout(provider.getTracer('jtrace-test'), `jrn_sdk_${label}`, entityId);
    await provider.forceFlush();
    await provider.shutdown();

    const journeys = await searchJourneys(entityId);
    expect(journeys).toHaveLength(1);
    expect(journeys[0]).toMatchObject({ journeyId: `jrn_sdk_${label}`, status: 'failed', eventCount: 2, failedStep: 'charge card' });
    const events = (await read<{ items: Array<{ id: string; name: string; service: string; hasError: boolean }> }>(`/v1/journeys/jrn_sdk_${label}/events`)).items;
    // Both spans may start in the same millisecond, so the timeline order is not asserted.
    const byName = new Map(events.map((e) => [e.name, e]));
    expect([...byName.keys()].sort()).toEqual(['POST /checkout', 'charge card']);
    expect(byName.get('POST /checkout')).toMatchObject({ service: 'checkout', hasError: false });
    expect(byName.get('charge card')).toMatchObject({ service: 'checkout', hasError: true });
    const payment = await read<{ parentEventId: string; error: { type: string; message: string } }>(`/v1/events/${byName.get('charge card')!.id}`);
    expect(payment.parentEventId).toBe(byName.get('POST /checkout')!.id);
    expect(payment.error).toMatchObject({ type: 'Error', message: 'card declined' });
    expect(await counted('traces', 'skipped')).toBe(skipped + 1);
  });

  it('counts a retried export as duplicates', async () => {
    // The spans are captured once, then handed to the OTLP exporter twice, as a retry would.
    const memory = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'checkout' }), spanProcessors: [new SimpleSpanProcessor(memory)] });
    recordCheckout(provider.getTracer('jtrace-test'), `jrn_sdk_retry_${label}`, `ord-sdk-retry-${label}`);
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    const otlp = exporter();
    const exportOnce = () => new Promise<number>((resolve) => otlp.export(spans, (result) => resolve(result.code)));
    expect(await exportOnce()).toBe(0);
    const duplicates = await counted('traces', 'duplicate');
    expect(await exportOnce()).toBe(0);
    expect(await counted('traces', 'duplicate')).toBe(duplicates + 2);
    expect((await searchJourneys(`ord-sdk-retry-${label}`))[0]!.eventCount).toBe(2);
    await otlp.shutdown();
    await provider.shutdown();
  });
});

describe.each([
  ['protobuf', () => new ProtoLogExporter({ url: `${base}/v1/logs`, headers: bearer(project.apiKey) })],
  ['JSON', () => new JsonLogExporter({ url: `${base}/v1/logs`, headers: { [API_KEY_HEADER]: project.apiKey } })],
] as const)('OpenTelemetry SDK logs over OTLP/HTTP %s', (label, exporter) => {
  it('stores log records with journey attributes and skips the others', async () => {
    const skipped = await counted('logs', 'skipped');
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'billing' }),
      processors: [new BatchLogRecordProcessor(exporter())],
    });
    const logger = provider.getLogger('jtrace-test');
    const journey = { 'jtrace.journey.id': `jrn_logs_${label}`, 'jtrace.entity.type': 'invoice', 'jtrace.entity.id': `inv-sdk-${label}` };
    logger.emit({ body: 'invoice stored', severityNumber: SeverityNumber.INFO, attributes: { ...journey, 'jtrace.operation': 'persisted', 'jtrace.name': 'store invoice' } });
    logger.emit({ body: 'cache warmed', severityNumber: SeverityNumber.INFO });
    logger.emit({ body: 'invoice sent', severityNumber: SeverityNumber.INFO, attributes: { ...journey, 'jtrace.operation': 'completed', 'jtrace.name': 'send invoice' } });
    await provider.forceFlush();
    await provider.shutdown();

    const journeys = await searchJourneys(`inv-sdk-${label}`);
    expect(journeys).toHaveLength(1);
    expect(journeys[0]).toMatchObject({ status: 'completed', eventCount: 2 });
    expect(await counted('logs', 'skipped')).toBe(skipped + 1);
  });
});
