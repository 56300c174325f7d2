import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { findUnstorable } from '../protocol/storability.ts';
import { compareJsonbKeys, inJsonbOrder } from './jsonb-order.ts';

/** inJsonbOrder against PostgreSQL itself: the copy iterates as JSON.parse of jsonb's text does. */

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db.drop());

const asJsonb = async (value: unknown) => (await db.pool.query<{ text: string }>('SELECT $1::jsonb::text AS text', [JSON.stringify(value)])).rows[0]!.text;

// jsonb holds neither NUL nor a lone surrogate (ingestion refuses both).
const storable = (text: string) => findUnstorable(text, '') === null;
const key = fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom('0', '1', '10', '01', '-1', '4294967295', '4294967294', '1.5', 'é', '\u{1F600}', '\uFFFF', '\u{10000}'));
const json = fc.jsonValue({ maxDepth: 3 }).filter((value) => storable(JSON.stringify(value)));
const object = fc.dictionary(key.filter(storable), json, { maxKeys: 8, noNullPrototype: true });

describe('inJsonbOrder', () => {
  it('lists every object key as JSON.parse of the stored jsonb does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(object, fc.array(object, { maxLength: 3 }), json), async (value) => {
        expect(JSON.stringify(inJsonbOrder(value))).toBe(JSON.stringify(JSON.parse(await asJsonb(value))));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a "__proto__" key as an own key, as JSON.parse does', async () => {
    const parsed = JSON.parse('{"b": 1, "__proto__": {"x": 1}, "a": [{"__proto__": 2}]}') as unknown;
    const copy = inJsonbOrder(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(JSON.parse(await asJsonb(parsed))));
    expect(Object.keys(copy)).toEqual(['a', 'b', '__proto__']);
  });

  it('orders keys by UTF-8 length, then by bytes', () => {
    const keys = ['ab', 'b', 'é', '\u{1F600}', '\uFFFF', 'a', 'aaa', 'z'];
    expect(keys.sort(compareJsonbKeys)).toEqual(['a', 'b', 'z', 'ab', 'é', 'aaa', '\uFFFF', '\u{1F600}']);
  });
});
