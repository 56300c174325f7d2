// The backfill gives aliases stored before loose matching their loose tokens, batch by batch,
// and resumes after an interruption from its persisted position.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, createReadFixture, get, ingest, keyring, urlWith, type ReadFixture } from '../query/test-fixtures.ts';
import { runLooseTokenBackfill } from './backfill.ts';

let fx: ReadFixture;
const JOURNEYS = 7;

beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', Array.from({ length: JOURNEYS }, (_, i) => ({
    id: `e-${i}`,
    journeyId: `j-${i}`,
    timestamp: `2026-02-1${i}T10:00:00.000Z`,
    entity: { type: 'contact', id: `C-${i}` },
    aliases: i % 2 === 0 ? { email: `Person${i}@Example.COM` } : { phone: `+44 20 7946 00${10 + i}` },
  })));
  // As stored before loose matching existed: no loose tokens.
  await fx.db.pool.query('DELETE FROM loose_search_tokens');
});
afterAll(async () => fx.close());

const looseIds = async (q: string) =>
  ((await get(fx, API_KEY, urlWith('/v1/search', [['q', q], ['match', 'loose']]))).json().data.items as Array<{ journeyId: string }>).map((item) => item.journeyId);
const state = async () => (await fx.db.pool.query('SELECT after_journey_id, journeys_done::int AS done, completed_at FROM loose_token_backfill')).rows[0];

describe('loose token backfill', () => {
  it('indexes stored aliases in bounded batches, resuming after an interruption', async () => {
    expect(await looseIds('person0@example.com')).toEqual([]);

    // Interrupted after two batches of two journeys: the position is kept.
    let batches = 0;
    const first = await runLooseTokenBackfill({ pool: fx.db.pool, keyring, batchJourneys: 2 }, () => batches++ >= 2);
    expect(first).toEqual({ outcome: 'stopped_early', batches: 2, journeys: 4 });
    expect(await state()).toMatchObject({ after_journey_id: 'j-3', done: 4, completed_at: null });
    expect(await looseIds('person0@example.com')).toEqual(['j-0']);
    expect(await looseIds('020 7946 0013')).toEqual(['j-3']);
    expect(await looseIds('person4@example.com')).toEqual([]);

    // A new run (as after a restart) takes up from there and finishes.
    const second = await runLooseTokenBackfill({ pool: fx.db.pool, keyring, batchJourneys: 2 });
    expect(second).toEqual({ outcome: 'completed', batches: 2, journeys: 3 });
    expect(await state()).toMatchObject({ after_journey_id: 'j-6', done: 7 });
    expect((await state()).completed_at).not.toBeNull();
    expect(await looseIds('PERSON4@example.com')).toEqual(['j-4']);
    expect(await looseIds('+44-20-7946-0015')).toEqual(['j-5']);
    const count = await fx.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM loose_search_tokens');
    // Four addresses, three numbers with two forms each.
    expect(count.rows[0]!.n).toBe(4 + 3 * 2);

    // A finished backfill does nothing more under the same key.
    expect(await runLooseTokenBackfill({ pool: fx.db.pool, keyring, batchJourneys: 2 })).toEqual({ outcome: 'completed', batches: 1, journeys: 0 });
  });
});
