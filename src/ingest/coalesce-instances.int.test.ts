import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool, type Pool } from '../db/pool.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { testEnvelope, uid } from './test-fixtures.ts';

/**
 * Two server instances on one database (each its own pool and coalescer, as two processes
 * would have), receiving copies and rivals of the same events for the same journeys at once:
 * per event id exactly one request stores it, same content is a duplicate, other content a
 * conflict, and every journey counts exactly its stored events.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });

let db: TestDatabase;
let secondPool: Pool;
let project: SeededProject;
const instances: Array<{ app: FastifyInstance; metrics: Metrics }> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  secondPool = createPool({ connectionString: db.url, max: 10, statementTimeoutMs: 15_000 });
  project = await seedProject(db.pool, keyring, 'instances');
  for (const pool of [db.pool, secondPool]) {
    const { app, deps } = await buildTestApp(pool, { keyring, config: { ingestCoalesceMaxWaitMs: 20, ingestCoalesceMaxEvents: 100 } });
    instances.push({ app, metrics: deps.metrics });
  }
});
afterAll(async () => {
  for (const { app } of instances) await app.close();
  await secondPool.end();
  await db.drop();
});

function send(instance: number, body: unknown): Promise<LightMyRequestResponse> {
  return instances[instance]!.app.inject({
    method: 'POST', url: '/v1/events', headers: { 'content-type': 'application/json', ...bearer(project.apiKey) }, payload: JSON.stringify(body),
  });
}

interface Sent { id: string; journeyId: string; content: string; response: LightMyRequestResponse }

/** The verdict rules, whatever the order the requests were applied in. */
async function expectConsistent(sent: Sent[]): Promise<void> {
  const byId = new Map<string, Sent[]>();
  for (const s of sent) byId.set(s.id, [...(byId.get(s.id) ?? []), s]);
  const storedPerJourney = new Map<string, number>();
  for (const [id, copies] of byId) {
    const winners = copies.filter((c) => c.response.statusCode === 202 && c.response.json().data.duplicate === false);
    expect(winners, `event ${id}: exactly one request stores it`).toHaveLength(1);
    const winner = winners[0]!;
    for (const copy of copies.filter((c) => c !== winner)) {
      const expected = copy.content === winner.content ? '202 true' : '409 event_id_conflict';
      const body = copy.response.json();
      expect(`${copy.response.statusCode} ${body.data?.duplicate ?? body.error?.code}`, `event ${id}`).toBe(expected);
    }
    storedPerJourney.set(winner.journeyId, (storedPerJourney.get(winner.journeyId) ?? 0) + 1);
    const row = await db.pool.query<{ journey_id: string; name: string }>('SELECT journey_id, name FROM events WHERE project_id = $1 AND id = $2', [project.projectId, id]);
    expect(row.rows).toEqual([{ journey_id: winner.journeyId, name: JSON.parse(winner.content).name }]);
  }
  const journeys = await db.pool.query<{ id: string; event_count: number }>(
    'SELECT id, event_count FROM journeys WHERE project_id = $1 AND id = ANY($2)', [project.projectId, [...storedPerJourney.keys()]],
  );
  expect(new Map(journeys.rows.map((r) => [r.id, r.event_count]))).toEqual(storedPerJourney);
}

async function groupStats(metrics: Metrics) {
  const values = (await metrics.coalescedGroupEvents.get()).values;
  const of = (suffix: string) => values.find((v) => v.metricName === `service_ingest_coalesced_group_events${suffix}`)?.value ?? 0;
  return { groups: of('_count'), events: of('_sum') };
}

describe('two instances on one database', () => {
  it('copies and rivals of 160 events over 40 shared journeys, sent to both at once', async () => {
    const before = await Promise.all(instances.map((i) => groupStats(i.metrics)));
    const journeys = Array.from({ length: 40 }, () => `jrn_shared_${uid()}`);
    const sent: Array<Promise<Sent>> = [];
    for (let i = 0; i < 160; i++) {
      const envelope = testEnvelope({ journeyId: journeys[i % journeys.length], name: `step ${i}`, timestamp: new Date(Date.UTC(2026, 7, 6, 10, 0, i)).toISOString() });
      // Every fifth event: the second instance gets other content under the same id.
      const other = i % 5 === 0 ? { ...envelope, event: { ...envelope.event, name: `rival ${i}` } } : envelope;
      for (const [instance, body] of [[0, envelope], [1, other]] as const) {
        sent.push(send(instance, body).then((response) => ({ id: body.event.id as string, journeyId: body.event.journeyId as string, content: JSON.stringify(body.event), response })));
      }
    }
    await expectConsistent(await Promise.all(sent));
    // Both instances shared commits: fewer groups than events on each.
    for (const [i, instance] of instances.entries()) {
      const after = await groupStats(instance.metrics);
      expect(after.events - before[i]!.events).toBe(160);
      expect(after.groups - before[i]!.groups).toBeLessThan(160);
    }
  }, 60_000);

  it('any mix of copies, rivals and journeys sent to either instance gives the rules of separate requests', async () => {
    const request = fc.record({
      id: fc.integer({ min: 0, max: 3 }),
      journey: fc.integer({ min: 0, max: 2 }),
      variant: fc.integer({ min: 0, max: 1 }),
      instance: fc.integer({ min: 0, max: 1 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 12 }), async (requests) => {
        const run = uid();
        const sent = await Promise.all(requests.map(async (r) => {
          const event = testEnvelope({ id: `evt_p${run}_${r.id}`, journeyId: `jrn_p${run}_${r.journey}`, name: `variant ${r.variant}` });
          const response = await send(r.instance, event);
          return { id: event.event.id as string, journeyId: event.event.journeyId as string, content: JSON.stringify(event.event), response };
        }));
        await expectConsistent(sent);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
