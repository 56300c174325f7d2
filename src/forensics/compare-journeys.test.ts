import { describe, expect, it } from 'vitest';
import type { JourneyPayloads } from '../query/journey-payloads.ts';
import { compareJourneys } from './compare-journeys.ts';
import { MAX_COMPARE_DIFF_ROWS } from './limits.ts';
import { MAX_READ_DIFF_ROWS } from './read-diff.ts';
import { payloadEvent } from './test-journeys.ts';

/** `steps` steps whose outputs hold `keys` keys, each valued by `salt`: two salts differ in every key. */
function wideJourney(steps: number, keys: number, salt: string): JourneyPayloads {
  const wide = () => Object.fromEntries(Array.from({ length: keys }, (_, k) => [`k${k}`, `${salt}${k}`]));
  return { events: Array.from({ length: steps }, (_, i) => payloadEvent(i, { n: i }, wide())), truncated: false } as JourneyPayloads;
}

describe('compareJourneys answer size', () => {
  it(`carries at most ${MAX_COMPARE_DIFF_ROWS.toLocaleString('en-US')} diff rows in all, flags the cut, and still marks every differing pair`, async () => {
    // 50 pairs of 500 changed keys: 25,000 rows, more than one answer carries.
    const comparison = await compareJourneys(wideJourney(50, MAX_READ_DIFF_ROWS, 'a'), wideJourney(50, MAX_READ_DIFF_ROWS, 'b'));
    const rows = comparison.pairs.map((pair) => (pair.inputDiff?.rows.length ?? 0) + (pair.outputDiff?.rows.length ?? 0));
    expect(rows.reduce((sum, n) => sum + n, 0)).toBe(MAX_COMPARE_DIFF_ROWS);
    expect(comparison.diffRowsTruncated).toBe(true);
    expect(comparison.pairs.every((pair) => pair.differs)).toBe(true);
    // Pairs before the budget ran out are whole; the one where it ran out and every later one are flagged.
    const whole = MAX_COMPARE_DIFF_ROWS / MAX_READ_DIFF_ROWS;
    expect(comparison.pairs.slice(0, whole).every((pair) => pair.outputDiff?.truncated === false)).toBe(true);
    expect(comparison.pairs.slice(whole).every((pair) => pair.outputDiff?.truncated === true && pair.outputDiff.rows.length === 0)).toBe(true);
  });

  it('leaves a comparison within the budget whole and unflagged', async () => {
    const comparison = await compareJourneys(wideJourney(3, 10, 'a'), wideJourney(3, 10, 'b'));
    expect(comparison.diffRowsTruncated).toBe(false);
    expect(comparison.pairs.map((pair) => pair.outputDiff?.rows.length)).toEqual([10, 10, 10]);
  });
});
