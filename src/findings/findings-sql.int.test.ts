import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../db/pool.ts';
import { createReadFixture, ingest, type ReadFixture } from '../query/test-fixtures.ts';
import { storeAnalyses } from './findings-sql.ts';
import { selectPendingJourneys } from './pending-sql.ts';
import { journeyFindings, storedFindings } from './test-kit.ts';

let fx: ReadFixture;
beforeAll(async () => {
  fx = await createReadFixture();
});
afterAll(async () => fx.close());

// Any text a payload key, a service or a step name can hold (PostgreSQL text holds no NUL),
// array-literal syntax included: quotes, backslashes, braces, commas, the word NULL.
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('NULL', 'null', 'Null', '"', '\\', '{}', '{a,b}', ' ', ' a', 'a ', '\t', '\u000b', '\f', '\u00a0', '', 'a"b\\c', '\u{1F600}'),
).filter((value) => !value.includes('\u0000'));

describe('storing findings', () => {
  it('reads back any findings as they were stored, replacing those of an earlier analysis', async () => {
    await ingest(fx, 'production', [{ id: 'store-1', journeyId: 'jrn-store', timestamp: '2026-02-10T10:00:00.000Z', input: {}, output: {} }]);
    const [journey] = await selectPendingJourneys(fx.db.pool, 10);
    await fc.assert(
      fc.asyncProperty(journeyFindings(text, 12), async (findings) => {
        await withTransaction(fx.db.pool, (client) => storeAnalyses(client, [{ journey: journey!, findings }], new Date()));
        expect(await storedFindings(fx.db.pool, fx.projectId, 'jrn-store')).toEqual(findings);
      }),
      { numRuns: 60 },
    );
  });
});
