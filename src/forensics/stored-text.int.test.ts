// The whole-journey reads compare stored texts before walking: equal texts skip the walk. The
// answers must be exactly those of walking every payload, and equal texts must really be equal.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readJourneyPayloads, type JourneyPayloads } from '../query/journey-payloads.ts';
import { createReadFixture, ingest, type ReadFixture } from '../query/test-fixtures.ts';
import { compareJourneys } from './compare-journeys.ts';
import { stableKey } from './json-values.ts';
import { listJourneyChanges } from './journey-changes.ts';
import { VARIANT_JOURNEYS, everyContactJourney } from './test-journeys.ts';

let fx: ReadFixture;
const JOURNEYS = [...Object.keys(VARIANT_JOURNEYS), 'jrn-mixed'];

beforeAll(async () => {
  fx = await createReadFixture();
  await ingest(fx, 'production', [
    ...everyContactJourney(),
    // Objects sent with their keys in another order: one value, one stored text.
    { id: 'mixed-1', journeyId: 'jrn-mixed', timestamp: '2026-02-10T10:00:00.000Z', input: { b: 1, a: [1.0, 2] }, output: { a: [1, 2.0], b: 1.0 } },
    { id: 'mixed-2', journeyId: 'jrn-mixed', timestamp: '2026-02-10T10:00:01.000Z', input: { a: [1, 2], b: 1 }, output: { a: [1, 2], b: 1.5 } },
    { id: 'mixed-3', journeyId: 'jrn-mixed', timestamp: '2026-02-10T10:00:02.000Z', input: { b: 1.5, a: [1, 2] } },
  ]);
});
afterAll(async () => fx.close());

const read = async (journeyId: string) => {
  const scope = { projectId: fx.projectId, environmentId: null, environmentName: null };
  return (await readJourneyPayloads(fx.db.pool, scope, journeyId, 100))!;
};

/** The same events with parsed payloads and no stored texts: every comparison walks. */
const walked = (journey: JourneyPayloads): JourneyPayloads => ({
  truncated: journey.truncated,
  events: journey.events.map(({ inputText: _input, outputText: _output, ...event }, index) => ({
    ...event,
    inputPayload: journey.events[index]!.inputPayload,
    outputPayload: journey.events[index]!.outputPayload,
  })),
});

it.each(JOURNEYS)('what changed in %s is what walking every payload gives', async (journeyId) => {
  const journey = await read(journeyId);
  expect(await listJourneyChanges(journey)).toEqual(await listJourneyChanges(walked(journey)));
});

it.each(JOURNEYS.flatMap((a) => JOURNEYS.map((b) => [a, b] as const)))('comparing %s with %s is what walking every payload gives', async (a, b) => {
  const [x, y] = [await read(a), await read(b)];
  expect(await compareJourneys(x, y)).toEqual(await compareJourneys(walked(x), walked(y)));
});

it('reads equal stored texts as equal values', async () => {
  const journey = await read('jrn-mixed');
  for (const event of journey.events) {
    for (const other of journey.events) {
      if (event.inputText != null && event.inputText === other.outputText) expect(stableKey(event.inputPayload)).toBe(stableKey(other.outputPayload));
    }
  }
  // mixed-1's output and mixed-2's input are the same value sent with another key order.
  expect(journey.events[0]!.outputText).toBe(journey.events[1]!.inputText);
});
