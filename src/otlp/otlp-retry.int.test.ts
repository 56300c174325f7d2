import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { countRows } from '../ingest/test-fixtures.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { API_KEY_HEADER } from './routes.ts';

/**
 * Retries, as the OpenTelemetry exporter makes them: after a lost response nothing is stored
 * twice; during a database outage the export is answered 503 and the exporter's own retry
 * stores every span. The outage is a TCP relay in front of this file's own database that the
 * test closes and reopens: no other test's connections are touched.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });

/** A TCP relay to PostgreSQL that can refuse and drop every connection, then come back. */
class DatabaseRelay {
  private server = net.createServer((client) => this.relay(client));
  private sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  private relay(client: net.Socket) {
    const upstream = net.connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => this.sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  }

  async open(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Refuses new connections and cuts the open ones, as a database going away does. */
  async fail(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
    this.server = net.createServer((client) => this.relay(client));
  }
}

/** An HTTP relay to the server that loses the response to the first request it forwards. */
function lossyRelay(targetPort: number) {
  let dropped = 0;
  const server = http.createServer((request, response) => {
    const upstream = http.request({ host: '127.0.0.1', port: targetPort, path: request.url, method: request.method, headers: request.headers }, (answer) => {
      if (dropped === 0) {
        dropped++;
        answer.resume();
        answer.on('end', () => request.socket.destroy());
        return;
      }
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    request.pipe(upstream);
  });
  return { server, dropped: () => dropped };
}

let db: TestDatabase;
let relay: DatabaseRelay;
let relayedPool: Pool;
let app: FastifyInstance;
let metrics: Metrics;
let project: SeededProject;
let base: string;

beforeAll(async () => {
  db = await createTestDatabase();
  project = await seedProject(db.pool, keyring, 'otel-retry');
  const url = new URL(db.url);
  relay = new DatabaseRelay({ host: url.hostname, port: Number(url.port) });
  await relay.open();
  url.hostname = '127.0.0.1';
  url.port = String(relay.port);
  relayedPool = createPool({ connectionString: url.toString(), max: 4, statementTimeoutMs: 15_000 });
  const built = await buildTestApp(relayedPool, { keyring, config: { otlpEnabled: true } });
  app = built.app;
  metrics = built.deps.metrics;
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  await relayedPool.end();
  await relay.fail();
  await db.drop();
});

const storedEvents = (journeyId: string) => countRows(db.pool, 'events WHERE project_id = $1 AND journey_id = $2', [project.projectId, journeyId]);

function provider(url: string) {
  const exporter = new OTLPTraceExporter({ url, headers: { [API_KEY_HEADER]: project.apiKey } });
  return new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'shipping' }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
}

function recordShipment(tracer: Tracer, journeyId: string) {
  const journey = { 'jtrace.journey.id': journeyId, 'jtrace.entity.type': 'parcel', 'jtrace.entity.id': `${journeyId}-parcel` };
  const root = tracer.startSpan('ship', { attributes: { ...journey, 'jtrace.operation': 'received' } });
  tracer.startSpan('label', { attributes: { ...journey, 'jtrace.operation': 'transformed' } }, trace.setSpan(ROOT_CONTEXT, root)).end();
  root.end();
}

async function answered(status: string): Promise<number> {
  const metric = await metrics.httpRequests.get();
  return metric.values.filter((v) => v.labels.route === '/v1/traces' && v.labels.status === status).reduce((sum, v) => sum + v.value, 0);
}

describe('OTLP exports retried by the OpenTelemetry exporter', () => {
  it('stores nothing twice when the response to an export was lost and the exporter resent it', async () => {
    const lossy = lossyRelay(Number(new URL(base).port));
    await new Promise<void>((resolve) => lossy.server.listen(0, '127.0.0.1', resolve));
    const tracing = provider(`http://127.0.0.1:${(lossy.server.address() as AddressInfo).port}/v1/traces`);
    const duplicateBefore = (await metrics.otlpRecords.get()).values.find((v) => v.labels.signal === 'traces' && v.labels.result === 'duplicate')!.value;
    recordShipment(tracing.getTracer('jtrace-test'), 'jrn_lost_response');
    await tracing.forceFlush();
    await tracing.shutdown();
    await new Promise<void>((resolve) => lossy.server.close(() => resolve()));

    expect(lossy.dropped()).toBe(1);
    expect(await storedEvents('jrn_lost_response')).toBe(2);
    const duplicateAfter = (await metrics.otlpRecords.get()).values.find((v) => v.labels.signal === 'traces' && v.labels.result === 'duplicate')!.value;
    expect(duplicateAfter - duplicateBefore).toBe(1);
  });

  it('answers 503 while the database is unreachable; the exporter retries and every span is stored', async () => {
    const unavailableBefore = await answered('503');
    await relay.fail();
    const tracing = provider(`${base}/v1/traces`);
    recordShipment(tracing.getTracer('jtrace-test'), 'jrn_outage');
    const flushed = tracing.forceFlush();

    // The database comes back once an export was refused; the exporter's backoff is about a second.
    const deadline = Date.now() + 8_000;
    while ((await answered('503')) === unavailableBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await answered('503')).toBeGreaterThan(unavailableBefore);
    expect(await storedEvents('jrn_outage')).toBe(0);
    const direct = await app.inject({
      method: 'POST', url: '/v1/traces', payload: '{}', headers: { 'content-type': 'application/json', [API_KEY_HEADER]: project.apiKey },
    });
    expect(direct.statusCode).toBe(503);
    expect(direct.json()).toMatchObject({ code: 14, error: { code: 'database_unavailable' } });
    await relay.open();

    await flushed;
    await tracing.shutdown();
    expect(await storedEvents('jrn_outage')).toBe(2);
  });
});
