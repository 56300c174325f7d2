// A journey's timeline reads only the day partitions from its first event's arrival to its last
// (src/query/events-sql.ts),
// and still lists every event of a journey whose events span several days, in timeline order.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { ensureEventPartitions } from '../db/event-partitions.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { timelineStatement } from './events-sql.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;
let clock = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring, now: () => clock })).app;
  project = await seedProject(db.pool, keyring, 'timeline-days');
  // The days from 2027-03-01 to 2027-03-10.
  expect(await ensureEventPartitions(db.pool, Date.parse('2027-03-02T12:00:00Z'), 8)).toMatchObject({ outcome: 'completed' });
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

async function sendOn(day: string, journeyId: string, id: string, timestamp: string) {
  clock = Date.parse(`${day}T09:30:00.000Z`);
  const event = {
    id, journeyId, environment: 'production', service: 'checkout', entity: { type: 'order', id: `entity-${journeyId}` },
    operation: 'transformed', name: id, timestamp,
  };
  const response = await app.inject({
    method: 'POST',
    url: '/v1/events/batch',
    headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ events: [{ protocolVersion: '0.1', event }] }),
  });
  expect(response.statusCode, response.body).toBe(202);
  expect(response.json().data.results, response.body).toEqual([expect.objectContaining({ status: 'accepted' })]);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** The event partitions a timeline page's statement read, from EXPLAIN ANALYZE. */
async function partitionsRead(journeyId: string): Promise<string[]> {
  const { sql, values } = timelineStatement(project.projectId, journeyId, null, 50);
  const result = await db.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values);
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

    const timeline = await app.inject({
      method: 'GET',
      url: '/v1/journeys/jrn-two-days/events',
      headers: { authorization: `Bearer ${project.apiKey}` },
    });
    expect(timeline.statusCode, timeline.body).toBe(200);
    expect(timeline.json().data.items.map((event: { id: string }) => event.id)).toEqual(['evt-early', 'evt-late']);

    expect(await partitionsRead('jrn-two-days')).toEqual(['events_p20270303', 'events_p20270304', 'events_p20270305', 'events_p20270306']);
    expect(await partitionsRead('jrn-other')).toEqual(['events_p20270304', 'events_p20270305']);
    // A journey without events reads no partition at all.
    expect(await partitionsRead('jrn-unknown')).toEqual([]);
  });
});
