import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { hexId, jsonTraces } from '../otlp/test-payloads.ts';
import { countRows, testEnvelope as envelope, uid } from './test-fixtures.ts';

/**
 * Every path that stores events writes each event's event_ids row (migration 0020: the events
 * statement writes them, no trigger does): batches, single events coalesced or alone, OTLP.
 * Each event is then found by its id: a resend is a duplicate, the event reads back.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let coalescing: FastifyInstance;
let alone: FastifyInstance;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  coalescing = (await buildTestApp(db.pool, { keyring, config: { otlpEnabled: true, ingestCoalesceMaxWaitMs: 5 } })).app;
  alone = (await buildTestApp(db.pool, { keyring, config: { ingestCoalesceMaxEvents: 0 } })).app;
  project = await seedProject(db.pool, keyring, 'ids');
});
afterAll(async () => {
  await coalescing.close();
  await alone.close();
  await db.drop();
});

function post(app: FastifyInstance, url: string, body: unknown) {
  return app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...bearer(project.apiKey) }, payload: JSON.stringify(body) });
}

/** Events of the project without an event_ids row naming their id and partition. */
const withoutIds = () =>
  countRows(db.pool, `events e WHERE e.project_id = $1 AND NOT EXISTS (SELECT 1 FROM event_ids i
     WHERE i.project_id = e.project_id AND i.id = e.id AND i.journey_id = e.journey_id AND i.received_at = e.received_at)`, [project.projectId]);
const idsOf = (journeyId: string) => countRows(db.pool, 'event_ids WHERE project_id = $1 AND journey_id = $2', [project.projectId, journeyId]);

describe('event_ids of every stored event', () => {
  it('a batch writes one row per stored event, and a resend is a duplicate', async () => {
    const journeyId = `jrn_${uid()}`;
    const batch = Array.from({ length: 5 }, () => envelope({ journeyId }));
    expect((await post(coalescing, '/v1/events/batch', { events: batch })).statusCode).toBe(202);
    expect(await idsOf(journeyId)).toBe(5);
    const again = await post(coalescing, '/v1/events/batch', { events: batch });
    expect((again.json() as { data: { results: Array<{ status: string; duplicate?: boolean }> } }).data.results.every((r) => r.duplicate === true)).toBe(true);
    expect(await idsOf(journeyId)).toBe(5);
  });

  it('single events, coalesced into one transaction or each alone, write theirs', async () => {
    const journeyId = `jrn_${uid()}`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(coalescing, '/v1/events', envelope({ journeyId: `${journeyId}_${uid()}` }))));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(202));
    const single = envelope({ journeyId });
    expect((await post(alone, '/v1/events', single)).statusCode).toBe(202);
    expect(await idsOf(journeyId)).toBe(1);
    const resent = await post(alone, '/v1/events', single);
    expect(resent.json()).toMatchObject({ data: { duplicate: true } });
  });

  it('OTLP spans write theirs', async () => {
    const journeyId = `jrn_${uid()}`;
    const spans = [1, 2, 3].map((n) => ({
      traceId: hexId(16), spanId: hexId(8), name: `step ${n}`, startMs: Date.UTC(2026, 7, 6, 16, 31, n), durationMs: 5,
      attributes: { 'jtrace.journey.id': journeyId, 'jtrace.entity.type': 'order', 'jtrace.entity.id': 'ord-1', 'jtrace.operation': 'received' },
    }));
    expect((await post(coalescing, '/v1/traces', jsonTraces('checkout', spans))).statusCode).toBe(200);
    expect(await idsOf(journeyId)).toBe(3);
  });

  it('no stored event of any path lacks its row', async () => {
    expect(await countRows(db.pool, 'events WHERE project_id = $1', [project.projectId])).toBe(15);
    expect(await withoutIds()).toBe(0);
  });
});
