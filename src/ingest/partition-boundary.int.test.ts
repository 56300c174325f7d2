// Events live in day partitions of received_at (migration 0017): ingestion at a day boundary,
// idempotency across days, and an event whose day has no partition yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureEventPartitions } from '../db/event-partitions.ts';
import { createEventDays, type EventDays } from '../../test/helpers/event-days.ts';

let days: EventDays;

beforeAll(async () => {
  days = await createEventDays('partitions');
});
afterAll(async () => {
  await days.close();
});

function event(id: string, journeyId: string, name = 'receive') {
  return { id, journeyId, operation: 'received', name, timestamp: '2027-01-10T12:00:00.000Z' };
}

async function send(...events: ReturnType<typeof event>[]) {
  return (await days.send(...events)).map((r) => (r.status === 'accepted' ? (r.duplicate ? 'duplicate' : 'accepted') : r.error?.code));
}

/** The partition each stored copy of an event id is in. */
async function partitionsOf(id: string): Promise<string[]> {
  const result = await days.db.pool.query<{ part: string }>(
    'SELECT tableoid::regclass::text AS part FROM events WHERE project_id = $1 AND id = $2',
    [days.project.projectId, id],
  );
  return result.rows.map((row) => row.part);
}

describe('day partitions of events', () => {
  it('stores the last microsecond of a day and the first of the next in their own days, and keeps ids unique across them', async () => {
    expect(await ensureEventPartitions(days.db.pool, Date.parse('2027-01-10T12:00:00Z'), 1)).toEqual({ outcome: 'completed', created: 3 });
    // Created once: a second run finds them.
    expect(await ensureEventPartitions(days.db.pool, Date.parse('2027-01-10T12:00:00Z'), 1)).toEqual({ outcome: 'completed', created: 0 });

    days.setClock('2027-01-10T23:59:59.999Z');
    expect(await send(event('evt-before-midnight', 'jrn-boundary'))).toEqual(['accepted']);
    days.setClock('2027-01-11T00:00:00.000Z');
    expect(
      await send(
        event('evt-after-midnight', 'jrn-boundary', 'validate'),
        event('evt-before-midnight', 'jrn-boundary'),
        event('evt-before-midnight', 'jrn-boundary', 'changed'),
      ),
    ).toEqual(['accepted', 'duplicate', 'event_id_conflict']);

    expect(await partitionsOf('evt-before-midnight')).toEqual(['events_p20270110']);
    expect(await partitionsOf('evt-after-midnight')).toEqual(['events_p20270111']);
    const ids = await days.db.pool.query('SELECT id, received_at FROM event_ids WHERE project_id = $1 ORDER BY id', [days.project.projectId]);
    expect(ids.rows.map((row) => [row.id, row.received_at.toISOString()])).toEqual([
      ['evt-after-midnight', '2027-01-11T00:00:00.000Z'],
      ['evt-before-midnight', '2027-01-10T23:59:59.999Z'],
    ]);

    expect(await days.timelineIds('jrn-boundary')).toEqual(['evt-before-midnight', 'evt-after-midnight']);
    const one = await days.app.inject({ method: 'GET', url: '/v1/events/evt-after-midnight', headers: { authorization: `Bearer ${days.project.apiKey}` } });
    expect(one.statusCode).toBe(200);
  });

  it('stores an event of a day without a partition in the default one, and moves it when the day is created', async () => {
    days.setClock('2027-06-01T08:00:00.000Z');
    expect(await send(event('evt-no-day', 'jrn-default'))).toEqual(['accepted']);
    expect(await partitionsOf('evt-no-day')).toEqual(['events_default']);
    expect(await send(event('evt-no-day', 'jrn-default'))).toEqual(['duplicate']);

    expect(await ensureEventPartitions(days.db.pool, Date.parse('2027-06-01T08:00:00Z'), 0)).toEqual({ outcome: 'completed', created: 2 });
    expect(await partitionsOf('evt-no-day')).toEqual(['events_p20270601']);
    expect(await send(event('evt-no-day', 'jrn-default'), event('evt-no-day', 'jrn-default', 'changed'))).toEqual([
      'duplicate',
      'event_id_conflict',
    ]);
    const count = await days.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND id = $2', [
      days.project.projectId,
      'evt-no-day',
    ]);
    expect(count.rows[0]!.n).toBe(1);
  });

  it('lets one process create partitions at a time', async () => {
    const holder = await days.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(7314017)');
      expect(await ensureEventPartitions(days.db.pool, Date.parse('2027-09-01T00:00:00Z'))).toEqual({ outcome: 'locked' });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });
});
