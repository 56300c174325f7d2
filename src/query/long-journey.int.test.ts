// A journey of tens of thousands of events is read in bounded work (docs/operations.md, "Very
// long journeys"): a page of its event list reads that page's rows and a few more, wherever the
// page is, and still lists the right events in timeline order; the forensic reads stop at their
// event limit; the journey read lists a bounded number of aliases. The journeys are grown in one
// statement (test-long-journey.ts) after ingestion created them and after the statistics were
// taken, as for a key that keeps feeding one journey: PostgreSQL plans for a short journey.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FORENSICS_EVENTS } from '../forensics/limits.ts';
import { REDACTED } from '../protocol/redaction/redact.ts';
import { encodeTimelineCursor } from './cursor.ts';
import { selectJourneyAliases } from './details-sql.ts';
import { selectTimelinePage } from './events-sql.ts';
import { selectPayloadEvents, selectPrunedPayloadEvents } from './payloads-sql.ts';
import { addAliases, explainingPool, growJourney, rowsScanned } from './test-long-journey.ts';
import { ADMIN, API_KEY, createReadFixture, get, ingest, keyring, urlWith, type ReadFixture } from './test-fixtures.ts';

const EVENTS = 60_000;
const ALIASES = 12_000;
const FIRST_MS = Date.parse('2026-02-01T00:00:00.000Z');
const RECEIVED_MS = Date.parse('2026-02-27T00:00:00.000Z');
const idAt = (k: number) => `evt-${String(k).padStart(7, '0')}`;
const cursorAt = (k: number) =>
  encodeTimelineCursor({ timestampUs: BigInt(FIRST_MS + k * 1000) * 1000n, receivedAtUs: BigInt(RECEIVED_MS + k) * 1000n, eventId: idAt(k) });

let fx: ReadFixture;

beforeAll(async () => {
  fx = await createReadFixture();
  // Ingestion creates the journeys (row, entity, aliases) among a hundred short ones; the
  // statistics are taken then, and the fixture appends the long tails afterwards.
  const short = Array.from({ length: 100 }, (_, i) => ({ id: `short-${i}`, journeyId: `jrn-short-${i}`, timestamp: '2026-01-31T12:00:00.000Z', aliases: { email: `user${i}@example.com` } }));
  await ingest(fx, 'production', [
    ...short,
    { id: 'seed', journeyId: 'jrn-long', timestamp: '2026-01-31T23:59:00.000Z', aliases: { email: 'ada@example.com' } },
    // A key that states new aliases with every event: 1,000 per event over 12 events.
    { id: 'named', journeyId: 'jrn-aliases', timestamp: '2026-02-01T00:00:00.000Z', aliases: { account: 'acct-1', email: 'ada@example.com' }, displayableAliases: ['email'] },
  ]);
  await fx.db.pool.query('ANALYZE event_ids, events, journeys, journey_aliases');
  await growJourney(fx.db.pool, fx.projectId, 'jrn-long', EVENTS, { prefix: 'evt-', firstTimestampMs: FIRST_MS, firstReceivedMs: RECEIVED_MS });
  await addAliases(fx.db.pool, keyring, fx.projectId, 'jrn-aliases', ALIASES);
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

    // The statement the route ran, as PostgreSQL executed it for the route.
    const position = after === null ? null : { timestampUs: BigInt(FIRST_MS + after * 1000) * 1000n, receivedAtUs: BigInt(RECEIVED_MS + after) * 1000n, eventId: idAt(after) };
    const scanned = rowsScanned(await selectTimelinePage(explainingPool(fx.db.pool), fx.projectId, 'jrn-long', position, 101));
    // The page's 101 rows, and a row at each end of the journey's arrivals; not the journey.
    expect(scanned.byRelation.event_ids ?? 0, JSON.stringify(scanned.byRelation)).toBeLessThanOrEqual(2);
    expect(scanned.total, JSON.stringify(scanned.byRelation)).toBeLessThanOrEqual(200);
  });
});

describe('the forensic reads of a very long journey', () => {
  it.each([
    ['whole payloads', () => selectPayloadEvents(explainingPool(fx.db.pool), fx.projectId, 'jrn-long', MAX_FORENSICS_EVENTS + 1)],
    ['one path of each payload', () => selectPrunedPayloadEvents(explainingPool(fx.db.pool), fx.projectId, 'jrn-long', ['customer', 'phone'], REDACTED, MAX_FORENSICS_EVENTS + 1)],
  ])('read %s of 10,001 events, not of the whole journey', async (_what, read) => {
    const scanned = rowsScanned(await read());
    expect(scanned.total, JSON.stringify(scanned.byRelation)).toBeLessThanOrEqual(MAX_FORENSICS_EVENTS + 1);
  });
});

describe('the journey read of a journey with very many aliases', () => {
  it('lists the first 10,000 in read order and says there are more', async () => {
    for (const credential of [API_KEY, ADMIN]) {
      const journey = (await get(fx, credential, '/v1/journeys/jrn-aliases')).json().data;
      expect(journey.aliasesTruncated).toBe(true);
      expect(journey.aliases).toHaveLength(10_000);
      // Type in byte order, then first stored: the ingested account alias first, e-mail past the cut.
      expect(journey.aliases[0]).toEqual({ type: 'account', displayValue: '…', displayable: false });
      expect(journey.aliases.slice(1).every((alias: { type: string; displayValue: string }) => alias.type === 'account' && alias.displayValue === 'acct…042')).toBe(true);
    }
    const few = (await get(fx, API_KEY, '/v1/journeys/jrn-long')).json().data;
    expect(few).toMatchObject({ aliasesTruncated: false, aliases: [{ type: 'email', displayValue: 'ada@…com', displayable: false }] });
  });

  it('reads about 10,000 aliases, not all of them', async () => {
    const scanned = rowsScanned(await selectJourneyAliases(explainingPool(fx.db.pool), fx.projectId, 'jrn-aliases', 10_001));
    expect(scanned.byRelation.journey_aliases, JSON.stringify(scanned.byRelation)).toBeLessThanOrEqual(10_001);
  });
});
