import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../db/pool.ts';
import { NOW_MS, createReadFixture, ingest, type EventInput, type ReadFixture } from '../query/test-fixtures.ts';
import type { Analyzer } from './analyzer.ts';
import { lockExpectations } from './expectations-sql.ts';
import { saveExpectation } from './expectations.ts';
import { allFindingRows, drainAll, markAll, pendingCount, quietAnalyzer, storedFindings } from './test-kit.ts';

/**
 * Findings computed by ingestion for a journey that comes whole in one batch are the findings
 * the analyzer computes from the stored events: after the batch, a full analysis from scratch
 * changes nothing. Journeys it cannot compute the same way wait for the analyzer.
 */

let fx: ReadFixture;
let analyzer: Analyzer;
let serial = 0;

beforeAll(async () => {
  fx = await createReadFixture();
  analyzer = quietAnalyzer(fx.db.pool, { now: () => NOW_MS });
});
afterEach(async () => {
  await fx.db.pool.query('DELETE FROM journeys');
  await fx.db.pool.query('DELETE FROM expectations');
});
afterAll(async () => {
  await analyzer.stop();
  await fx.close();
});

const pendingOf = async (journeyId: string) =>
  (await fx.db.pool.query('SELECT 1 FROM journey_findings_pending WHERE journey_id = $1', [journeyId])).rowCount === 1;
const findingsRows = async (journeyId: string) => (await allFindingRows(fx.db.pool)).filter((row) => row.startsWith(`${journeyId}|`));
const firstFound = async (journeyId: string) =>
  (await fx.db.pool.query<{ at: string }>('SELECT first_found_at::text AS at FROM journey_findings WHERE journey_id = $1', [journeyId])).rows[0]?.at ?? null;

// Keys whose orders differ between the sender's object, jsonb (UTF-8 length, then bytes) and
// JavaScript (integer-like keys first): non-ASCII, astral, integer-like and not quite.
const key = fc.constantFrom('0', '1', '10', '2', '01', '-1', 'a', 'b', 'aa', 'B', 'é', 'ä', 'zz', '\u{1F600}', '\uFFFD', 'phone', 'Phone', 'customer');
const leaf = fc.oneof(fc.constantFrom(null, true, 'x', 'y', '', '[REDACTED]', 0, 1, 2.5, -0), fc.string({ maxLength: 3 }));
const value = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 4, noNullPrototype: true })),
})).node;
const payload = fc.option(fc.dictionary(key, value, { maxKeys: 5, noNullPrototype: true }), { nil: null, freq: 5 });
const step = fc.record({
  input: payload,
  output: payload,
  service: fc.constantFrom('a', 'b'),
  // A name repeats now and then: a step recorded twice is left to the analyzer.
  name: fc.constantFrom('step-0', 'step-1', 'step-2', 'step-3', 'step-4', 'step-5', 'step-6', 'step-7'),
  operation: fc.constantFrom('transformed', 'transformed', 'delivered', 'failed', 'retried'),
  // Events out of order and at equal times happen: the analyzer orders by time, arrival, id.
  secondsAfter: fc.constantFrom(-5, 0, 0, 1, 5),
});

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function journeyOf(journeyId: string, steps: Step[]): EventInput[] {
  let at = Date.UTC(2026, 1, 10, 10, 0, 0);
  return steps.map((s, index) => {
    at += s.secondsAfter * 1000;
    return {
      id: `${journeyId}-${index}`,
      journeyId,
      timestamp: new Date(at).toISOString(),
      entity: { type: 'contact', id: journeyId },
      service: s.service,
      name: s.name,
      operation: s.operation,
      ...(s.operation === 'failed' ? { error: { type: 'Error', message: 'no' } } : {}),
      ...(s.input === null ? {} : { input: s.input }),
      ...(s.output === null ? {} : { output: s.output }),
    };
  });
}

describe('findings computed by ingestion', () => {
  it('are what a full analysis of the stored events finds, with and without an expectation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), fc.boolean(), async (steps, expect_) => {
        if (expect_) {
          await saveExpectation(fx.db.pool, fx.projectId, 'contact', {
            steps: [{ name: 'step-0', optional: false }, { name: 'step-1', optional: true }, { name: 'step-2', optional: false }],
            finalStep: 'step-3',
            maxGapSeconds: 3,
            deadlineSeconds: 60,
          });
        }
        const journeyId = `jrn-ingested-${serial++}`;
        const events = journeyOf(journeyId, steps);
        await ingest(fx, 'production', events);
        const repeated = new Set(events.filter((e) => e.operation !== 'retried').map((e) => `${e.service}|${e.name}|${e.operation}`)).size <
          events.filter((e) => e.operation !== 'retried').length;
        expect(await pendingOf(journeyId)).toBe(repeated);
        await drainAll(analyzer, fx.db.pool);
        const found = await findingsRows(journeyId);
        const foundAt = await firstFound(journeyId);

        await markAll(fx.db.pool);
        await drainAll(analyzer, fx.db.pool);
        expect(await findingsRows(journeyId)).toEqual(found);
        expect(await firstFound(journeyId)).toBe(foundAt);
        await fx.db.pool.query('DELETE FROM expectations');
      }),
      { numRuns: 60 },
    );
  }, 180_000);

  it('leaves a journey whose events come in several batches to the analyzer', async () => {
    const events = journeyOf('jrn-two-batches', [
      { input: { phone: '1' }, output: { phone: '1' }, service: 'a', name: 'step-0', operation: 'transformed', secondsAfter: 0 },
      { input: { phone: '1' }, output: {}, service: 'b', name: 'step-1', operation: 'transformed', secondsAfter: 1 },
    ]);
    await ingest(fx, 'production', [events[0]!]);
    expect(await pendingCount(fx.db.pool)).toBe(0);
    expect(await storedFindings(fx.db.pool, fx.projectId, 'jrn-two-batches')).toEqual([]);
    await ingest(fx, 'production', [events[1]!]);
    expect(await pendingCount(fx.db.pool)).toBe(1);
    await drainAll(analyzer, fx.db.pool);
    expect(await storedFindings(fx.db.pool, fx.projectId, 'jrn-two-batches')).toEqual([
      { kind: 'lost', path: 'phone', step: { eventId: 'jrn-two-batches-1', service: 'b', name: 'step-1' }, inTransit: false, from: null },
    ]);
  });

  it('counts the journeys and findings in the metrics', async () => {
    const before = await fx.metrics.registry.metrics();
    const analysed = (text: string) => Number(/service_findings_journeys_analysed_total (\d+)/.exec(text)![1]);
    const lost = (text: string) => Number(/service_findings_stored_total\{kind="lost"\} (\d+)/.exec(text)![1]);
    await ingest(fx, 'production', journeyOf('jrn-counted', [{ input: { phone: '1', name: 'n' }, output: {}, service: 'a', name: 'step-0', operation: 'transformed', secondsAfter: 0 }]));
    const after = await fx.metrics.registry.metrics();
    expect(analysed(after) - analysed(before)).toBe(1);
    expect(lost(after) - lost(before)).toBe(2);
  });
});

describe('an expectation saved while a batch computes findings', () => {
  it('waits for the batch to commit, then marks its journeys too', async () => {
    await ingest(fx, 'production', journeyOf('jrn-before-save', [{ input: null, output: null, service: 'a', name: 'step-0', operation: 'transformed', secondsAfter: 0 }]));
    expect(await pendingCount(fx.db.pool)).toBe(0);
    let saved = false;
    const { save } = await withTransaction(fx.db.pool, async (batch) => {
      // A batch between its read of the expectations and its commit holds the lock shared.
      await lockExpectations(batch, fx.projectId, 'shared');
      const waiting = saveExpectation(fx.db.pool, fx.projectId, 'contact', { steps: [], finalStep: 'step-9', maxGapSeconds: null, deadlineSeconds: 1 }).then(() => {
        saved = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(saved).toBe(false);
      return { save: waiting };
    });
    await save;
    expect(saved).toBe(true);
    expect(await pendingCount(fx.db.pool)).toBe(1);
    await drainAll(analyzer, fx.db.pool);
    expect((await storedFindings(fx.db.pool, fx.projectId, 'jrn-before-save')).map((f) => f.kind)).toEqual(['overdue']);
  });
});

describe('with FINDINGS_AT_INGEST=false', () => {
  it('marks every journey for the analyzer and stores no findings itself', async () => {
    const off = await createReadFixture(undefined, { findingsAtIngest: false });
    try {
      await ingest(off, 'production', journeyOf('jrn-off', [{ input: { phone: '1' }, output: {}, service: 'a', name: 'step-0', operation: 'transformed', secondsAfter: 0 }]));
      expect(await pendingCount(off.db.pool)).toBe(1);
      expect(await storedFindings(off.db.pool, off.projectId, 'jrn-off')).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
