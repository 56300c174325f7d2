// A journey of tens of thousands of events is read in bounded work (docs/operations.md, "Very
// long journeys"): a page of its event list reads that page's rows and a few more, wherever the
// page is, and still lists the right events in timeline order. The journey is grown in one
// statement (test-long-journey.ts) after ingestion created it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTimelineCursor } from './cursor.ts';
import { timelineStatement } from './events-sql.ts';
import { growJourney, rowsScanned } from './test-long-journey.ts';
import { API_KEY, createReadFixture, get, ingest, urlWith, type ReadFixture } from './test-fixtures.ts';

const EVENTS = 60_000;
const FIRST_MS = Date.parse('2026-02-01T00:00:00.000Z');
const RECEIVED_MS = Date.parse('2026-02-27T00:00:00.000Z');
const idAt = (k: number) => `evt-${String(k).padStart(7, '0')}`;
const cursorAt = (k: number) =>
  encodeTimelineCursor({ timestampUs: BigInt(FIRST_MS + k * 1000) * 1000n, receivedAtUs: BigInt(RECEIVED_MS + k) * 1000n, eventId: idAt(k) });

let fx: ReadFixture;

beforeAll(async () => {
  fx = await createReadFixture();
  // Ingestion creates the journey (its row, entity, alias); the fixture appends the long tail.
  await ingest(fx, 'production', [{ id: 'seed', journeyId: 'jrn-long', timestamp: '2026-01-31T23:59:00.000Z', aliases: { email: 'ada@example.com' } }]);
  await growJourney(fx.db.pool, fx.projectId, 'jrn-long', EVENTS, { prefix: 'evt-', firstTimestampMs: FIRST_MS, firstReceivedMs: RECEIVED_MS });
  await fx.db.pool.query('ANALYZE event_ids, events, journeys');
}, 120_000);
afterAll(async () => fx.close());

describe('the event list of a very long journey', () => {
  it.each([
    ['first', null, 'seed', idAt(98)],
    ['middle', EVENTS / 2, idAt(EVENTS / 2 + 1), idAt(EVENTS / 2 + 100)],
    ['last', EVENTS - 60, idAt(EVENTS - 59), idAt(EVENTS - 1)],
  ] as const)('reads about one page of rows for its %s page', async (_where, after, firstId, lastId) => {
    const cursor = after === null ? null : cursorAt(after);
    const response = await get(fx, API_KEY, urlWith('/v1/journeys/jrn-long/events', [['limit', '100'], ...(cursor === null ? [] : [['cursor', cursor] as [string, string]])]));
    expect(response.statusCode).toBe(200);
    const page = response.json().data as { items: Array<{ id: string }>; nextCursor: string | null };
    expect(page.items[0]!.id).toBe(firstId);
    expect(page.items.at(-1)!.id).toBe(lastId);
    expect(page.nextCursor === null).toBe(after === EVENTS - 60);

    const { sql, values } = timelineStatement(fx.projectId, 'jrn-long', after === null ? null : { timestampUs: BigInt(FIRST_MS + after * 1000) * 1000n, receivedAtUs: BigInt(RECEIVED_MS + after) * 1000n, eventId: idAt(after) }, 101);
    const scanned = await rowsScanned(fx.db.pool, sql, values);
    // The page's 101 rows, and a row at each end of the journey's arrivals; not the journey.
    expect(scanned.byRelation.event_ids ?? 0, JSON.stringify(scanned.byRelation)).toBeLessThanOrEqual(2);
    expect(scanned.total, JSON.stringify(scanned.byRelation)).toBeLessThanOrEqual(200);
  });
});
