// Events live in day partitions of received_at (migration 0017): ingestion at a day boundary,
// idempotency across days, and an event whose day has no partition yet.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { ensureEventPartitions } from '../db/event-partitions.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;
let clock = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring, now: () => clock })).app;
  project = await seedProject(db.pool, keyring, 'partitions');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

function envelope(id: string, journeyId: string, name = 'receive') {
  return {
    protocolVersion: '0.1',
    event: {
      id, journeyId, environment: 'production', service: 'checkout', entity: { type: 'order', id: `entity-${journeyId}` },
      operation: 'received', name, timestamp: '2027-01-10T12:00:00.000Z',
    },
  };
}

async function send(...events: ReturnType<typeof envelope>[]) {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/events/batch',
    headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ events }),
  });
  expect(response.statusCode, response.body).toBe(202);
  return (response.json().data.results as Array<{ status: string; duplicate?: boolean; error?: { code: string } }>).map((r) =>
    r.status === 'accepted' ? (r.duplicate ? 'duplicate' : 'accepted') : r.error?.code,
  );
}

/** The partition each stored copy of an event id is in. */
async function partitionsOf(id: string): Promise<string[]> {
  const result = await db.pool.query<{ part: string }>(
    'SELECT tableoid::regclass::text AS part FROM events WHERE project_id = $1 AND id = $2',
    [project.projectId, id],
  );
  return result.rows.map((row) => row.part);
}

describe('day partitions of events', () => {
  it('stores the last microsecond of a day and the first of the next in their own days, and keeps ids unique across them', async () => {
    expect(await ensureEventPartitions(db.pool, Date.parse('2027-01-10T12:00:00Z'), 1)).toEqual({ outcome: 'completed', created: 3 });
    // Created once: a second run finds them.
    expect(await ensureEventPartitions(db.pool, Date.parse('2027-01-10T12:00:00Z'), 1)).toEqual({ outcome: 'completed', created: 0 });

    clock = Date.parse('2027-01-10T23:59:59.999Z');
    expect(await send(envelope('evt-before-midnight', 'jrn-boundary'))).toEqual(['accepted']);
    clock = Date.parse('2027-01-11T00:00:00.000Z');
    expect(
      await send(
        envelope('evt-after-midnight', 'jrn-boundary', 'validate'),
        envelope('evt-before-midnight', 'jrn-boundary'),
        envelope('evt-before-midnight', 'jrn-boundary', 'changed'),
      ),
    ).toEqual(['accepted', 'duplicate', 'event_id_conflict']);

    expect(await partitionsOf('evt-before-midnight')).toEqual(['events_p20270110']);
    expect(await partitionsOf('evt-after-midnight')).toEqual(['events_p20270111']);
    const ids = await db.pool.query('SELECT id, received_at FROM event_ids WHERE project_id = $1 ORDER BY id', [project.projectId]);
    expect(ids.rows.map((row) => [row.id, row.received_at.toISOString()])).toEqual([
      ['evt-after-midnight', '2027-01-11T00:00:00.000Z'],
      ['evt-before-midnight', '2027-01-10T23:59:59.999Z'],
    ]);

    const timeline = await app.inject({
      method: 'GET',
      url: '/v1/journeys/jrn-boundary/events',
      headers: { authorization: `Bearer ${project.apiKey}` },
    });
    expect(timeline.statusCode).toBe(200);
    expect(timeline.json().data.items.map((event: { id: string }) => event.id)).toEqual(['evt-before-midnight', 'evt-after-midnight']);
    const one = await app.inject({ method: 'GET', url: '/v1/events/evt-after-midnight', headers: { authorization: `Bearer ${project.apiKey}` } });
    expect(one.statusCode).toBe(200);
  });

  it('stores an event of a day without a partition in the default one, and moves it when the day is created', async () => {
    clock = Date.parse('2027-06-01T08:00:00.000Z');
    expect(await send(envelope('evt-no-day', 'jrn-default'))).toEqual(['accepted']);
    expect(await partitionsOf('evt-no-day')).toEqual(['events_default']);
    expect(await send(envelope('evt-no-day', 'jrn-default'))).toEqual(['duplicate']);

    expect(await ensureEventPartitions(db.pool, Date.parse('2027-06-01T08:00:00Z'), 0)).toEqual({ outcome: 'completed', created: 2 });
    expect(await partitionsOf('evt-no-day')).toEqual(['events_p20270601']);
    expect(await send(envelope('evt-no-day', 'jrn-default'), envelope('evt-no-day', 'jrn-default', 'changed'))).toEqual([
      'duplicate',
      'event_id_conflict',
    ]);
    const count = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND id = $2', [
      project.projectId,
      'evt-no-day',
    ]);
    expect(count.rows[0]!.n).toBe(1);
  });

  it('lets one process create partitions at a time', async () => {
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(7314017)');
      expect(await ensureEventPartitions(db.pool, Date.parse('2027-09-01T00:00:00Z'))).toEqual({ outcome: 'locked' });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });
});
