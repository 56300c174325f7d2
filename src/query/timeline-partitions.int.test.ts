// A journey's timeline reads only the day partitions from its first event's arrival to its last
// (src/query/events-sql.ts),
// and still lists every event of a journey whose events span several days, in timeline order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureEventPartitions } from '../db/event-partitions.ts';
import { createEventDays, type EventDays } from '../../test/helpers/event-days.ts';
import { timelineStatement } from './events-sql.ts';

let days: EventDays;

beforeAll(async () => {
  days = await createEventDays('timeline-days');
  // The days from 2027-03-01 to 2027-03-10.
  expect(await ensureEventPartitions(days.db.pool, Date.parse('2027-03-02T12:00:00Z'), 8)).toMatchObject({ outcome: 'completed' });
});
afterAll(async () => {
  await days.close();
});

async function sendOn(day: string, journeyId: string, id: string, timestamp: string) {
  days.setClock(`${day}T09:30:00.000Z`);
  const results = await days.send({ id, journeyId, operation: 'transformed', name: id, timestamp });
  expect(results).toEqual([expect.objectContaining({ status: 'accepted' })]);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** The event partitions a timeline page's statement read, from EXPLAIN ANALYZE. */
async function partitionsRead(journeyId: string): Promise<string[]> {
  const { sql, values } = timelineStatement(days.project.projectId, journeyId, null, 50);
  const result = await days.db.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values);
  const read: string[] = [];
  const walk = (node: PlanNode) => {
    if (node['Relation Name']?.startsWith('events_') && (node['Actual Loops'] ?? 0) > 0) read.push(node['Relation Name']);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(result.rows[0]!['QUERY PLAN'][0]!.Plan);
  return read.sort();
}

describe('a timeline page and the day partitions of events', () => {
  it('lists the events of a journey received over several days, and reads only the days from its first arrival to its last', async () => {
    // Received on the 3rd and the 6th; timestamps put the later arrival first in the timeline.
    await sendOn('2027-03-03', 'jrn-two-days', 'evt-late', '2027-03-01T10:00:02.000Z');
    await sendOn('2027-03-04', 'jrn-other', 'evt-other', '2027-03-04T08:00:00.000Z');
    await sendOn('2027-03-05', 'jrn-other', 'evt-other-2', '2027-03-04T08:00:01.000Z');
    await sendOn('2027-03-06', 'jrn-two-days', 'evt-early', '2027-03-01T10:00:01.000Z');

    expect(await days.timelineIds('jrn-two-days')).toEqual(['evt-early', 'evt-late']);

    expect(await partitionsRead('jrn-two-days')).toEqual(['events_p20270303', 'events_p20270304', 'events_p20270305', 'events_p20270306']);
    expect(await partitionsRead('jrn-other')).toEqual(['events_p20270304', 'events_p20270305']);
    // A journey without events reads no partition at all.
    expect(await partitionsRead('jrn-unknown')).toEqual([]);
  });
});
