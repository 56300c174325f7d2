import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { hexId, jsonTraces, type SpanSpec } from './test-payloads.ts';

/** Parent links across exports: a child exported after its parent still names the parent's event. */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring, config: { otlpEnabled: true } })).app;
  project = await seedProject(db.pool, keyring, 'otel-parents');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

async function exportSpans(spans: SpanSpec[]) {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/traces',
    payload: JSON.stringify(jsonTraces('checkout', spans)),
    headers: { ...bearer(project.apiKey), 'content-type': 'application/json' },
  });
  expect(response.statusCode).toBe(200);
}

async function parentOf(eventId: string): Promise<unknown> {
  const response = await app.inject({ method: 'GET', url: `/v1/events/${encodeURIComponent(eventId)}`, headers: bearer(project.apiKey) });
  expect(response.statusCode).toBe(200);
  return (response.json() as { data: { parentEventId: unknown } }).data.parentEventId;
}

describe('POST /v1/traces parent links', () => {
  it('a parent exported in an earlier export becomes the child’s parentEventId', async () => {
    const traceId = hexId(16);
    const [root, child, grandchild] = [hexId(8), hexId(8), hexId(8)];
    const journey = { 'jtrace.journey.id': `jrn_${hexId(8)}`, 'jtrace.entity.type': 'order', 'jtrace.entity.id': 'o-1' };
    const startMs = Date.UTC(2026, 7, 6, 16, 31, 2);
    await exportSpans([{ traceId, spanId: root, name: 'POST /checkout', startMs, durationMs: 5, attributes: { ...journey, 'jtrace.operation': 'received' } }]);
    await exportSpans([
      { traceId, spanId: child, parentSpanId: root, name: 'validate', startMs: startMs + 1, durationMs: 1, attributes: { ...journey, 'jtrace.operation': 'validated' } },
      // Its parent carried no journey attributes and was never stored: the link names no event.
      { traceId, spanId: grandchild, parentSpanId: 'ffffffffffffffff', name: 'charge', startMs: startMs + 2, durationMs: 1, attributes: { ...journey, 'jtrace.operation': 'delivered' } },
    ]);
    expect(await parentOf(`otel-span-${traceId}-${child}`)).toBe(`otel-span-${traceId}-${root}`);
    expect(await parentOf(`otel-span-${traceId}-${root}`)).toBeNull();
    expect(await parentOf(`otel-span-${traceId}-${grandchild}`)).toBe(`otel-span-${traceId}-ffffffffffffffff`);
    const missing = await app.inject({ method: 'GET', url: `/v1/events/otel-span-${traceId}-ffffffffffffffff`, headers: bearer(project.apiKey) });
    expect(missing.statusCode).toBe(404);
  });
});
