import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FORENSICS_EVENTS } from '../forensics/limits.ts';
import { readJourneysPayloads } from '../query/journey-payloads.ts';
import { NOW_MS, createReadFixture, ingest, type EventInput, type ReadFixture } from '../query/test-fixtures.ts';
import { analyzeJourney } from './analyze.ts';
import type { Expectation } from './expectation-input.ts';
import { upsertExpectation } from './expectations-sql.ts';
import { MAX_FINDINGS_PER_JOURNEY } from './limits.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { drainAll, quietAnalyzer, storedFindings } from './test-kit.ts';

/**
 * Incremental analysis stores exactly what a full analysis of the whole journey gives (analyze.ts,
 * which walks every event at once with the forensics routes' listJourneyChanges): for random
 * journeys (losses, changes, renames, redactions, duplicates, failures, retries, timestamps out
 * of order, an expectation or none) split into passes at random cut points and arriving in a
 * random order, each slice stored through the batch route and analysed before the next, some
 * passes walking only two or three events of a journey at a time.
 */

let fx: ReadFixture;
let serial = 0;

beforeAll(async () => {
  fx = await createReadFixture();
});
afterAll(async () => fx.close());

const value = fc.oneof(fc.constantFrom(null, 'x', 'y', '[REDACTED]', 1, 2, ''), fc.constantFrom([1, 2], [2], { n: 1 }, { id: 'a', q: 1 }));
const payload = fc.option(
  fc.dictionary(fc.constantFrom('name', 'phone', 'email', 'items'), fc.oneof(value, fc.dictionary(fc.constantFrom('phone', 'city'), value, { maxKeys: 2 })), { maxKeys: 3 }),
  { nil: null, freq: 3 },
);
/** Wide payloads: journeys with more than the 100 findings kept, so passes add findings past the cut. */
const KEYS = Array.from({ length: 60 }, (_, i) => `field${i}`);
const widePayload = fc.option(fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(null, 'x', 'y', 1), { minKeys: 20, maxKeys: 50 }), { nil: null, freq: 5 });
const NAMES = ['receive', 'check', 'persist', 'done'] as const;
const stepOf = (payload: fc.Arbitrary<Record<string, unknown> | null>) => fc.record({
  input: payload,
  output: payload,
  service: fc.constantFrom('a', 'b'),
  name: fc.constantFrom(...NAMES),
  operation: fc.constantFrom('transformed', 'transformed', 'delivered', 'failed', 'retried', 'persisted'),
  error: fc.boolean(),
  // Seconds after the journey's start: equal and decreasing stamps both occur.
  second: fc.integer({ min: 0, max: 12 }),
});
const expectation: fc.Arbitrary<Expectation | null> = fc.option(
  fc.record({
    steps: fc.uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), optional: fc.boolean() }), { selector: (s) => s.name, maxLength: 3 }),
    finalStep: fc.constantFrom(...NAMES),
    maxGapSeconds: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
    deadlineSeconds: fc.option(fc.constantFrom(5, 86_400 * 30), { nil: null }),
  }),
  { nil: null },
);
/** Steps, the order they arrive in (a permutation), where the arrivals are cut into passes, and how many events a pass walks per journey. */
const journeyOf = (step: ReturnType<typeof stepOf>) => fc.array(step, { minLength: 1, maxLength: 10 }).chain((steps) =>
  fc.record({
    steps: fc.constant(steps),
    arrival: fc.shuffledSubarray(steps.map((_, i) => i), { minLength: steps.length, maxLength: steps.length }),
    cuts: fc.array(fc.boolean(), { minLength: steps.length, maxLength: steps.length }),
    expectation,
    perPass: fc.constantFrom(2, 3, 2_000),
  }),
);

type Journey = typeof journeyOf extends (...args: never[]) => fc.Arbitrary<infer J> ? J : never;

/** Ingests the journey pass by pass, analysing after each, and compares with a full analysis. */
async function sameAsFull({ steps, arrival, cuts, expectation, perPass }: Journey): Promise<number> {
  const journeyId = `jrn-inc-${serial}`;
  const entityType = `type-${serial++}`;
  if (expectation !== null) await upsertExpectation(fx.db.pool, fx.projectId, entityType, expectation);
  const events: EventInput[] = steps.map((s, index) => ({
    id: `${journeyId}-${index}`,
    journeyId,
    entity: { type: entityType, id: `entity-${journeyId}` },
    timestamp: new Date(Date.UTC(2026, 1, 10, 10, 0, s.second)).toISOString(),
    service: s.service,
    name: s.name,
    operation: s.operation,
    ...(s.error || s.operation === 'failed' ? { error: { type: 'Timeout', message: 'x' } } : {}),
    ...(s.input === null ? {} : { input: s.input }),
    ...(s.output === null ? {} : { output: s.output }),
  }));
  const analyzer = quietAnalyzer(fx.db.pool, { now: () => NOW_MS, journeyEvents: perPass });
  // Every pass after the events already stored in timeline order: each event is read once.
  let inOrder = true;
  let latest = -Infinity;
  try {
    let slice: EventInput[] = [];
    for (let i = 0; i < arrival.length; i++) {
      slice.push(events[arrival[i]!]!);
      if (!cuts[i] && i < arrival.length - 1) continue;
      const stamps = slice.map((event) => Date.parse(event.timestamp));
      inOrder &&= Math.min(...stamps) >= latest;
      latest = Math.max(latest, ...stamps);
      await ingest(fx, 'production', slice);
      await drainAll(analyzer, fx.db.pool);
      slice = [];
    }
    if (inOrder && perPass >= events.length) expect(analyzer.readCounts().events).toBe(events.length);
  } finally {
    await analyzer.stop();
  }
  const walk = await fx.db.pool.query('SELECT walked, rewalking FROM journey_analysis WHERE project_id = $1 AND journey_id = $2', [fx.projectId, journeyId]);
  expect(walk.rows).toEqual([{ walked: events.length, rewalking: false }]);

  const payloads = (await readJourneysPayloads(fx.db.pool, fx.projectId, [journeyId], MAX_FORENSICS_EVENTS)).get(journeyId)!;
  const started = await fx.db.pool.query<{ started_at: Date }>('SELECT started_at FROM journeys WHERE project_id = $1 AND id = $2', [fx.projectId, journeyId]);
  const full = await analyzeJourney({ payloads, startedAtMs: started.rows[0]!.started_at.getTime(), expectation, nowMs: NOW_MS });
  expect(await storedFindings(fx.db.pool, fx.projectId, journeyId)).toEqual(full);
  return full.length;
}

describe('incremental analysis', () => {
  it('stores what a full analysis of the whole journey gives, whatever the passes and the arrival order', async () => {
    await fc.assert(fc.asyncProperty(journeyOf(stepOf(payload)), async (journey) => void (await sameAsFull(journey))), { numRuns: 60 });
  }, 120_000);

  it('keeps the same first 100 findings as a full analysis when passes add findings past the cut', async () => {
    let full = 0;
    await fc.assert(fc.asyncProperty(journeyOf(stepOf(widePayload)), async (journey) => void (full += (await sameAsFull(journey)) === MAX_FINDINGS_PER_JOURNEY ? 1 : 0)), { numRuns: 15 });
    // Most of these journeys reach the cut.
    expect(full).toBeGreaterThanOrEqual(3);
  }, 120_000);


  it('walks a journey again from its first event under another key', async () => {
    const journeyId = 'jrn-rekeyed';
    const at = (second: number) => new Date(Date.UTC(2026, 1, 10, 10, 0, second)).toISOString();
    const first = { id: `${journeyId}-0`, journeyId, timestamp: at(0), service: 'a', name: 'check', operation: 'transformed', input: { phone: '1' }, output: { phone: '1' } };
    await ingest(fx, 'production', [first]);
    const before = quietAnalyzer(fx.db.pool, { now: () => NOW_MS });
    await drainAll(before, fx.db.pool);
    await before.stop();
    // The same step again with the same content: no duplicate, whichever key hashed the first.
    await ingest(fx, 'production', [{ ...first, id: `${journeyId}-1`, timestamp: at(1) }]);
    const rotated = createKeyring({ current: 'another-encryption-key-0123456789abcdefghij' });
    const after = quietAnalyzer(fx.db.pool, { now: () => NOW_MS, keyring: rotated });
    await drainAll(after, fx.db.pool);
    await after.stop();
    expect(await storedFindings(fx.db.pool, fx.projectId, journeyId)).toEqual([]);
    const walk = await fx.db.pool.query<{ walked: number; key: string }>(`SELECT walked, state->>'k' AS key FROM journey_analysis WHERE journey_id = $1`, [journeyId]);
    expect(walk.rows).toEqual([{ walked: 2, key: rotated.currentKeyId }]);
  });
});
