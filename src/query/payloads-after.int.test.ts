import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction, type Pool } from '../db/pool.ts';
import { selectPayloadEventsAfter } from './payloads-after-sql.ts';
import { explainingPool, growJourney, rowsScanned } from './test-long-journey.ts';
import { createReadFixture, ingest, type ReadFixture } from './test-fixtures.ts';

/**
 * The findings analyzer's read of a journey's events after a position scans only those events,
 * however long the journey: on a 30,000-event journey the 100 after a position near its end.
 */

const EVENTS = 30_000;
const FIRST_MS = Date.parse('2026-02-01T00:00:00.000Z');
const RECEIVED_MS = Date.parse('2026-02-27T00:00:00.000Z');

let fx: ReadFixture;
beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [{ id: 'seed', journeyId: 'jrn-long', timestamp: '2026-01-31T00:00:00.000Z' }]);
  await growJourney(fx.db.pool, fx.projectId, 'jrn-long', EVENTS, { prefix: 'evt-', firstTimestampMs: FIRST_MS, firstReceivedMs: RECEIVED_MS });
  await fx.db.pool.query('ANALYZE events');
}, 120_000);
afterAll(async () => fx.close());

const eventRows = (plan: { byRelation: Record<string, number> }) =>
  Object.entries(plan.byRelation).filter(([name]) => name.startsWith('events')).reduce((sum, [, rows]) => sum + rows, 0);

describe("the read of a journey's events after a position", () => {
  it('scans the events after the position, not the journey', async () => {
    const position = await fx.db.pool.query<{ ts: string; rec: string; id: string }>(
      `SELECT to_char(event_timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS ts, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS rec, id
         FROM events WHERE journey_id = 'jrn-long' ORDER BY event_timestamp, received_at, id COLLATE "C" OFFSET $1 LIMIT 1`,
      [EVENTS - 100],
    );
    const { ts, rec, id } = position.rows[0]!;
    const read = (pool: Pool) =>
      withTransaction(pool, async (client) => {
        await client.query('SET LOCAL enable_sort = off');
        return selectPayloadEventsAfter(client, fx.projectId, [{ journeyId: 'jrn-long', after: { timestamp: ts, receivedAt: rec, id } }], 2_001);
      });
    const rows = await read(fx.db.pool);
    expect(rows).toHaveLength(100);
    expect(rows[0]!.id).toBe(`evt-${String(EVENTS - 100).padStart(7, '0')}`);
    expect(eventRows(rowsScanned(await read(explainingPool(fx.db.pool))))).toBeLessThanOrEqual(100);
  }, 60_000);
});
