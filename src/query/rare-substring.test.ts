import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { likeTrigrams, rareSubstring } from './rare-substring.ts';

describe('likeTrigrams', () => {
  it('pads a word only where a non-word character of the part bounds it', () => {
    expect(likeTrigrams('user42@')).toEqual(['use', 'ser', 'er4', 'r42', '42 ']);
    expect(likeTrigrams('@Ex')).toEqual(['  e', ' ex']);
    expect(likeTrigrams('ab')).toEqual([]);
    // "a " is too short for a trigram.
    expect(likeTrigrams('a.b')).toEqual(['  b']);
  });
});

describe('rareSubstring', () => {
  const common = new Set(['use', 'ser', 'er1', 'r12', '67 ']);

  it('keeps the longest part of q free of common trigrams', () => {
    expect(rareSubstring('user1234567@', common)).toBe('1234567');
    expect(rareSubstring('USER1234567@', common)).toBe('1234567');
  });

  it('keeps q when nothing is common, when every part holds a common trigram, or when q is long', () => {
    expect(rareSubstring('user1234567@', new Set())).toBeNull();
    expect(rareSubstring('2345678', common)).toBeNull();
    expect(rareSubstring('user', common)).toBeNull();
    expect(rareSubstring(`user1234567@${'x'.repeat(60)}`, common)).toBeNull();
  });

  it('never hands the index a part holding a character outside printable ASCII', () => {
    expect(rareSubstring('usér1234', new Set(['us ', '  r']))).toBe('r1234');
    expect(rareSubstring('useé', new Set(['use']))).toBeNull();
  });

  it('answers a part of q, in printable ASCII, holding a trigram and no common one', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('u', 's', 'e', 'r', '1', '2', '@', '.', '%', 'é', 'Ü'), maxLength: 20 }), fc.array(fc.string({ minLength: 3, maxLength: 3 }), { maxLength: 8 }), (q, picked) => {
        const set = new Set([...picked, ...likeTrigrams(q).filter((_, i) => i % 2 === 0)]);
        const part = rareSubstring(q, set);
        if (part === null) return;
        expect(q.includes(part)).toBe(true);
        expect(part).not.toBe(q);
        expect(part).toMatch(/^[\x20-\x7e]+$/);
        const trigrams = likeTrigrams(part);
        expect(trigrams.length).toBeGreaterThan(0);
        expect(trigrams.filter((t) => set.has(t))).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});
