import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import type { Metrics } from './metrics.ts';
import { startMetricsServer, type MetricsServer } from './server.ts';

/** The interface-spec Metrics table, exactly: name, type, label names, and the histogram's buckets. */
const TABLE: Array<{ name: string; type: string; labels: string[] }> = [
  { name: 'service_http_requests_total', type: 'counter', labels: ['method', 'route', 'status'] },
  { name: 'service_http_request_duration_seconds', type: 'histogram', labels: ['method', 'route'] },
  { name: 'service_events_total', type: 'counter', labels: ['result'] },
  { name: 'service_query_timeouts_total', type: 'counter', labels: ['route'] },
  { name: 'service_db_pool_connections', type: 'gauge', labels: ['state'] },
  { name: 'service_retention_sweep_runs_total', type: 'counter', labels: ['outcome'] },
  { name: 'service_retention_journeys_deleted_total', type: 'counter', labels: [] },
  { name: 'service_retention_last_success_timestamp_seconds', type: 'gauge', labels: [] },
  { name: 'service_unreadable_values', type: 'gauge', labels: ['table'] },
  { name: 'process_resident_memory_bytes', type: 'gauge', labels: [] },
  { name: 'nodejs_eventloop_lag_seconds', type: 'gauge', labels: [] },
];
const BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '+Inf'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'other'];
const REQUEST_VALUE = 'secret-looking-request-value';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`unparsed line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return { types, samples };
}

let db: TestDatabase;
let app: FastifyInstance;
let metrics: Metrics;
let server: MetricsServer;
let apiUrl: string;

beforeAll(async () => {
  // A short statement timeout lets one request time out on purpose (service_query_timeouts_total).
  db = await createTestDatabase({ statementTimeoutMs: 1000 });
  const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
  const built = await buildTestApp(db.pool, { keyring });
  app = built.app;
  metrics = built.deps.metrics;
  await app.listen({ host: '127.0.0.1', port: 0 });
  apiUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  server = await startMetricsServer(metrics, '127.0.0.1', 0);
  const project = await seedProject(db.pool, keyring, 'acme');

  const event = {
    id: 'evt_m1', journeyId: 'jrn_m1', environment: 'production', service: 'svc', entity: { type: 'order', id: REQUEST_VALUE },
    operation: 'received', name: 'received', timestamp: '2026-08-06T16:31:02.120Z',
  };
  const ingest = { 'content-type': 'application/json', ...bearer(project.apiKey) };
  await app.inject({ method: 'POST', url: '/v1/events/batch', headers: ingest, payload: JSON.stringify({ events: [{ protocolVersion: '0.1', event }] }) });
  await app.inject({ method: 'POST', url: '/v1/events/batch', headers: ingest, payload: JSON.stringify({ events: [{ protocolVersion: '0.1', event }, { protocolVersion: '0.1', event: {} }] }) });
  await app.inject({ method: 'GET', url: `/v1/journeys/${REQUEST_VALUE}`, headers: bearer(project.apiKey) });
  await app.inject({ method: 'GET', url: `/v1/events/${REQUEST_VALUE}?x=${REQUEST_VALUE}` });
  await app.inject({ method: 'GET', url: `/${REQUEST_VALUE}` });
  await app.inject({ method: 'GET', url: '/v1/events/%zz' });
  await app.inject({ method: 'GET', url: `/v1/journeys/${'j'.repeat(1200)}` });
  await app.inject({ method: 'PROPFIND' as 'GET', url: '/health' });
  // A table lock held elsewhere makes the journey read wait until the statement timeout cancels it.
  const blocker = await db.pool.connect();
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE journeys IN ACCESS EXCLUSIVE MODE');
  const timedOut = await app.inject({ method: 'GET', url: '/v1/journeys/jrn_m1', headers: bearer(project.apiKey) });
  await blocker.query('ROLLBACK');
  blocker.release();
  expect(timedOut.statusCode).toBe(503);
  await fetch(`${apiUrl}/health`);
  await fetch(`${apiUrl}/ready`);
});

afterAll(async () => {
  await server.close();
  await app.close();
  await db.drop();
});

async function scrape(): Promise<{ types: Map<string, string>; samples: Sample[]; contentType: string | null }> {
  const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
  expect(response.status).toBe(200);
  return { ...parseExposition(await response.text()), contentType: response.headers.get('content-type') };
}

describe('GET /metrics on METRICS_PORT', () => {
  it('serves every metric of the table with its exact type and label names', async () => {
    const { types, samples, contentType } = await scrape();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const metric of TABLE) {
      expect(types.get(metric.name), metric.name).toBe(metric.type);
      const own = samples.filter((s) => s.name === metric.name || (metric.type === 'histogram' && s.name.startsWith(`${metric.name}_`)));
      expect(own.length, metric.name).toBeGreaterThan(0);
      for (const sample of own) {
        const expected = sample.name.endsWith('_bucket') ? [...metric.labels, 'le'] : metric.labels;
        expect(Object.keys(sample.labels).sort(), sample.name).toEqual([...expected].sort());
      }
    }
  });

  it('uses the table’s histogram buckets', async () => {
    const { samples } = await scrape();
    const buckets = samples.filter((s) => s.name === 'service_http_request_duration_seconds_bucket' && s.labels.route === '/health' && s.labels.method === 'GET');
    expect(buckets.map((s) => s.labels.le)).toEqual(BUCKETS);
  });

  it('starts series at zero for every known label value', async () => {
    const fresh = await scrape();
    const values = (name: string, label: string) =>
      fresh.samples.filter((s) => s.name === name).map((s) => s.labels[label]).sort();
    expect(values('service_events_total', 'result')).toEqual(['accepted', 'duplicate', 'rejected']);
    expect(values('service_retention_sweep_runs_total', 'outcome')).toEqual(['completed', 'failed', 'locked', 'stopped_early']);
    expect(values('service_db_pool_connections', 'state')).toEqual(['free', 'pending', 'used']);
    expect(values('service_unreadable_values', 'table')).toEqual(['api_keys', 'journey_aliases', 'journeys', 'replay_destinations', 'search_tokens']);
  });

  it('labels routes by pattern or unmatched and methods by the seven or other; no label carries a request value', async () => {
    const { samples } = await scrape();
    const requests = samples.filter((s) => s.name === 'service_http_requests_total');
    const seen = (route: string, status: string, method = 'GET') =>
      requests.find((s) => s.labels.route === route && s.labels.status === status && s.labels.method === method)?.value ?? 0;
    expect(seen('/v1/events/batch', '202', 'POST')).toBe(2);
    expect(seen('/v1/journeys/:journeyId', '404')).toBe(1);
    expect(seen('/v1/journeys/:journeyId', '503')).toBe(1);
    const timeouts = samples.filter((s) => s.name === 'service_query_timeouts_total');
    expect(timeouts).toEqual([{ name: 'service_query_timeouts_total', labels: { route: '/v1/journeys/:journeyId' }, value: 1 }]);
    expect(seen('/v1/events/:eventId', '401')).toBe(1);
    expect(seen('unmatched', '404')).toBeGreaterThanOrEqual(1);
    expect(seen('unmatched', '400')).toBe(1);
    expect(seen('unmatched', '414')).toBe(1);
    expect(seen('/health', '200')).toBe(1);
    expect(seen('/ready', '200')).toBe(1);
    expect(requests.some((s) => s.labels.method === 'other')).toBe(true);
    for (const sample of samples) {
      if (sample.labels.method !== undefined) expect(METHODS).toContain(sample.labels.method);
      if (sample.labels.route !== undefined) expect(sample.labels.route === 'unmatched' || sample.labels.route.startsWith('/')).toBe(true);
      for (const value of Object.values(sample.labels)) expect(value).not.toContain(REQUEST_VALUE);
    }
    const events = Object.fromEntries(samples.filter((s) => s.name === 'service_events_total').map((s) => [s.labels.result, s.value]));
    expect(events).toEqual({ accepted: 1, duplicate: 1, rejected: 1 });
  });

  it('is 404 on the API port and for any other path on the metrics port', async () => {
    expect((await fetch(`${apiUrl}/metrics`)).status).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics/x`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});
