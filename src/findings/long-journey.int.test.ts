import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-key-service.ts';
import { createProject } from '../projects/projects-sql.ts';
import { growJourney } from '../query/test-long-journey.ts';
import { ADMIN, createReadFixture, get, ingest, keyring, type ReadFixture } from '../query/test-fixtures.ts';
import { TEST_ADMIN_TOKEN } from '../../test/helpers/app.ts';
import type { Analyzer } from './analyzer.ts';
import { ANALYZER_JOURNEY_EVENTS } from './limits.ts';
import { drainAll, markAll, quietAnalyzer, storedFindings } from './test-kit.ts';

/**
 * A journey grown to many events costs each pass only what is new: the pass after 100 more
 * events reads those 100 (and the one step the hand-off leaves from), whatever the journey's
 * length; another project's journey marked while the long one is fed is stored in the first
 * batch, after at most one slice of the long journey; and the walk's state goes with its journey.
 */

const LONG = 20_000;
const FIRST_MS = Date.parse('2026-02-01T00:00:00.000Z');
const RECEIVED_MS = Date.parse('2026-02-27T00:00:00.000Z');

let fx: ReadFixture;
let analyzer: Analyzer;
let grown = LONG;
const grow = async (count: number) => {
  await growJourney(fx.db.pool, fx.projectId, 'jrn-long', count, { prefix: `evt-${grown}-`, firstTimestampMs: FIRST_MS + grown * 1000, firstReceivedMs: RECEIVED_MS + grown });
  grown += count;
};
const walked = async (journeyId: string) =>
  (await fx.db.pool.query<{ walked: number; rewalking: boolean }>('SELECT walked, rewalking FROM journey_analysis WHERE journey_id = $1', [journeyId])).rows;

beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [{ id: 'seed', journeyId: 'jrn-long', timestamp: '2026-01-31T00:00:00.000Z', input: { customer: { name: 'Ada' } }, output: { customer: { name: 'Ada' } } }]);
  await growJourney(fx.db.pool, fx.projectId, 'jrn-long', LONG, { prefix: 'evt-', firstTimestampMs: FIRST_MS, firstReceivedMs: RECEIVED_MS });
  analyzer = quietAnalyzer(fx.db.pool);
  await markAll(fx.db.pool);
  await drainAll(analyzer, fx.db.pool);
}, 120_000);
afterAll(async () => {
  await analyzer.stop();
  await fx.close();
});

describe('a long journey fed continuously', () => {
  it('reads only the events stored since the last pass', async () => {
    expect(await walked('jrn-long')).toEqual([{ walked: LONG + 1, rewalking: false }]);
    for (let round = 0; round < 3; round++) {
      await grow(100);
      await markAll(fx.db.pool);
      const before = analyzer.readCounts();
      await drainAll(analyzer, fx.db.pool);
      const after = analyzer.readCounts();
      // The 100 new events, and the step the first hand-off leaves from: never the 20,000 before.
      expect(after.events - before.events).toBe(100);
      expect(after.carried - before.carried).toBe(1);
      expect(await walked('jrn-long')).toEqual([{ walked: grown + 1, rewalking: false }]);
    }
    // Each step's `n` changes within it (the fixture's output is one more): found up to the cap.
    const findings = await storedFindings(fx.db.pool, fx.projectId, 'jrn-long');
    expect(findings).toHaveLength(100);
    expect(findings.at(-1)).toMatchObject({ kind: 'changed', path: 'n', inTransit: false });
  }, 60_000);

  it("stores another project's journey in the first batch while the long one has more than a slice waiting", async () => {
    await createProject(fx.db.pool, 'other', 'Other');
    const other = await createApiKey(fx.db.pool, keyring, { projectSlug: 'other', environmentName: 'production', name: 'writer', defaultRetentionDays: 30 });
    const waiting = ANALYZER_JOURNEY_EVENTS * 2 + 500;
    await grow(waiting);
    await markAll(fx.db.pool);
    await ingest({ ...fx, keys: { production: other.apiKey } }, 'production', [
      { id: 'other-1', journeyId: 'jrn-other', timestamp: '2026-02-10T10:00:00.000Z', input: { phone: '1' }, output: {} },
    ]);
    const batches: Array<{ journeys: string[]; eventsRead: number }> = [];
    const engine = quietAnalyzer(fx.db.pool, {
      beforeStore: async (batch) => {
        batches.push({ journeys: batch.map((a) => a.journey.id), eventsRead: engine.readCounts().events });
      },
    });
    await analyzer.stop();
    analyzer = engine;
    await drainAll(engine, fx.db.pool);
    const first = batches.findIndex((b) => b.journeys.includes('jrn-other'));
    expect(first).toBe(0);
    // By then at most one slice of the long journey was read (and the look-ahead event).
    expect(batches[0]!.eventsRead).toBeLessThanOrEqual(ANALYZER_JOURNEY_EVENTS + 1 + 1);
    // The long journey went on in slices, behind the others, to its end.
    expect(batches.filter((b) => b.journeys.includes('jrn-long')).length).toBe(Math.ceil(waiting / ANALYZER_JOURNEY_EVENTS));
    expect(await walked('jrn-long')).toEqual([{ walked: grown + 1, rewalking: false }]);
    const otherProject = (await fx.db.pool.query<{ id: string }>(`SELECT id FROM projects WHERE slug = 'other'`)).rows[0]!.id;
    expect((await storedFindings(fx.db.pool, otherProject, 'jrn-other')).map((f) => `${f.kind} ${f.path}`)).toEqual(['lost phone']);
  }, 60_000);

  it('removes the walk with its journey', async () => {
    expect(await walked('jrn-long')).toHaveLength(1);
    const response = await fx.app.inject({ method: 'DELETE', url: '/v1/journeys/jrn-long', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': fx.projectId } });
    expect(response.statusCode, response.body).toBe(204);
    expect(await walked('jrn-long')).toEqual([]);
    expect((await get(fx, ADMIN, '/v1/journeys/jrn-long')).statusCode).toBe(404);
  }, 60_000);
});
