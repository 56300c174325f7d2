import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXPENSIVE_SHARE, estimatedRows, likeTrigrams, rareSubstring, type TrigramStatistics } from './rare-substring.ts';

describe('likeTrigrams', () => {
  it('pads a word only where a non-word character of the part bounds it', () => {
    expect(likeTrigrams('user42@')).toEqual(['use', 'ser', 'er4', 'r42', '42 ']);
    expect(likeTrigrams('@Ex')).toEqual(['  e', ' ex']);
    expect(likeTrigrams('ab')).toEqual([]);
    // "a " is too short for a trigram.
    expect(likeTrigrams('a.b')).toEqual(['  b']);
  });
});

function statistics(shares: Record<string, number>, rows = 10_000_000, floor = 0.005): TrigramStatistics {
  return { shares: new Map(Object.entries(shares)), floor, rows };
}

describe('estimatedRows', () => {
  it('multiplies the shares of trigrams sharing no character, the unlisted at the floor', () => {
    const s = statistics({ r12: 0.01, '345': 0.004, '67 ': 0.01 });
    // "r1234567 ": r12, 345 and "67 " (every third).
    expect(estimatedRows('r1234567@', s)).toBeCloseTo(10_000_000 * 0.01 * 0.004 * 0.01, 6);
    expect(estimatedRows('xyz', s)).toBeCloseTo(10_000_000 * 0.005, 6);
  });
});

describe('rareSubstring', () => {
  // The shape of ten million e-mails user1@ to user10000000@example.com.
  const emails = statistics({ use: 1, ser: 1, er1: 0.11, er9: 0.11, r12: 0.011, r99: 0.011, '99 ': 0.01, '67 ': 0.0101, '123': 0.0049, '234': 0.005 });

  it('probes with the part of q free of expensive trigrams that finds the fewest rows', () => {
    expect(rareSubstring('user1234567@', emails)).toBe('r1234567@');
    expect(rareSubstring('USER1234567@', emails)).toBe('R1234567@');
  });

  it('keeps q when no trigram of q is expensive, when every cheap part would find too many rows, or when q is long', () => {
    expect(rareSubstring('user1234567@', null)).toBeNull();
    expect(rareSubstring('2345678', emails)).toBeNull();
    expect(rareSubstring('user', emails)).toBeNull();
    // r99 and "99 " each hold a hundred thousand values.
    expect(rareSubstring('user99@', emails)).toBeNull();
    expect(rareSubstring(`user1234567@${'x'.repeat(60)}`, emails)).toBeNull();
  });

  it('never hands the index a part holding a character outside printable ASCII', () => {
    expect(rareSubstring('usér1234567', statistics({ use: 1, 'us ': 1 }))).toBe('r1234567');
    expect(rareSubstring('useé', statistics({ use: 1 }))).toBeNull();
  });

  it('answers a part of q, in printable ASCII, with a trigram, none expensive, estimated to find few rows', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('u', 's', 'e', 'r', '1', '2', '@', '.', '%', 'é', 'Ü'), maxLength: 20 }),
        fc.dictionary(fc.string({ minLength: 3, maxLength: 3, unit: fc.constantFrom('u', 's', 'e', 'r', '1', '2', ' ') }), fc.double({ min: 0.0001, max: 1, noNaN: true })),
        (q, shares) => {
          const s = statistics(shares, 100_000, 0.0001);
          const part = rareSubstring(q, s);
          if (part === null) return;
          expect(q.includes(part)).toBe(true);
          expect(part).toMatch(/^[\x20-\x7e]+$/);
          const trigrams = likeTrigrams(part);
          expect(trigrams.length).toBeGreaterThan(0);
          expect(trigrams.filter((t) => (s.shares.get(t) ?? 0) >= EXPENSIVE_SHARE)).toEqual([]);
          expect(estimatedRows(part, s)).toBeLessThanOrEqual(1_000);
        },
      ),
      { numRuns: 500 },
    );
  });
});
