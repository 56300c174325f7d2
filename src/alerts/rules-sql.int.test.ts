// countMatches over findings stored one row per journey (migration 0019): a finding counts in the
// window it was first found in, whatever was found in its journey later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../db/pool.ts';
import type { JourneyFinding } from '../findings/analyze.ts';
import { storeAnalyses } from '../findings/findings-sql.ts';
import { selectPendingJourneys } from '../findings/pending-sql.ts';
import { markAll } from '../findings/test-kit.ts';
import { createReadFixture, ingest, type ReadFixture } from '../query/test-fixtures.ts';
import { countMatches, type AlertRuleRecord } from './rules-sql.ts';

let fx: ReadFixture;
beforeAll(async () => {
  fx = await createReadFixture();
});
afterAll(async () => fx.close());

const step = { eventId: 'evt-1', service: 'crm', name: 'normalize' };
const lost = (path: string): JourneyFinding => ({ kind: 'lost', path, step, inTransit: false, from: null });
const failed: JourneyFinding = { kind: 'failed', path: null, step, inTransit: false, from: null };
const at = (minute: number) => new Date(Date.parse('2026-03-01T00:00:00Z') + minute * 60_000);

async function analyseAt(minute: number, findings: Record<string, JourneyFinding[]>): Promise<void> {
  await markAll(fx.db.pool);
  const pending = await selectPendingJourneys(fx.db.pool, 100);
  await withTransaction(fx.db.pool, (client) =>
    storeAnalyses(client, pending.map((journey) => ({ journey, findings: findings[journey.id] ?? [] })), at(minute)),
  );
}

describe('alert rule matches', () => {
  it('counts each finding in the window it was first found in, by kind, path, entity type and environment', async () => {
    for (const id of ['jrn-a', 'jrn-b']) {
      await ingest(fx, 'production', [{ id: `${id}-1`, journeyId: id, timestamp: '2026-02-10T10:00:00.000Z', entity: { type: 'contact', id }, input: {}, output: {} }]);
    }
    await analyseAt(0, { 'jrn-a': [lost('customer.phone'), failed] });
    // Found again (first found at minute 0) with a new one at minute 10, and another journey's.
    await analyseAt(10, { 'jrn-a': [failed, lost('customer.phone'), lost('customer.email')], 'jrn-b': [lost('customer.phone')] });
    const rule = (kind: string, extra: Partial<AlertRuleRecord> = {}) =>
      ({ project_id: fx.projectId, kind, path: null, entity_type: null, environment_id: null, ...extra }) as AlertRuleRecord;
    const count = (r: AlertRuleRecord, from: number, to: number) => countMatches(fx.db.pool, r, at(from), at(to), 10);

    expect(await count(rule('lost'), 0, 5)).toEqual({ count: 1, journeys: ['jrn-a'] });
    expect(await count(rule('failed'), 0, 5)).toEqual({ count: 1, journeys: ['jrn-a'] });
    expect(await count(rule('lost'), 5, 15)).toEqual({ count: 2, journeys: ['jrn-a', 'jrn-b'] });
    expect(await count(rule('failed'), 5, 15)).toEqual({ count: 0, journeys: [] });
    expect(await count(rule('lost', { path: 'customer.phone' }), 0, 15)).toEqual({ count: 2, journeys: ['jrn-a', 'jrn-b'] });
    expect(await count(rule('lost', { path: 'customer.email' }), 0, 5)).toEqual({ count: 0, journeys: [] });
    expect(await count(rule('lost', { entity_type: 'order' }), 0, 15)).toEqual({ count: 0, journeys: [] });
    expect(await count(rule('lost', { entity_type: 'contact' }), 0, 15)).toEqual({ count: 3, journeys: ['jrn-a', 'jrn-b'] });
    const other = (await fx.db.pool.query<{ id: string }>(`SELECT id FROM environments WHERE project_id = $1 AND name = 'staging'`, [fx.projectId])).rows[0]!.id;
    expect(await count(rule('lost', { environment_id: other }), 0, 15)).toEqual({ count: 0, journeys: [] });
    // A journey left without findings has no row, and nothing of it counts.
    await analyseAt(20, { 'jrn-b': [lost('customer.phone')] });
    expect(await count(rule('lost'), 0, 15)).toEqual({ count: 1, journeys: ['jrn-b'] });
    expect((await fx.db.pool.query(`SELECT journey_id FROM journey_findings ORDER BY journey_id`)).rows).toEqual([{ journey_id: 'jrn-b' }]);
  });
});
