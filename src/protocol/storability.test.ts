import { describe, expect, it } from 'vitest';
import { findUnstorable, hasUnpairedSurrogate, isStorableText } from './storability.ts';

describe('hasUnpairedSurrogate', () => {
  it('accepts well-formed text', () => {
    for (const text of ['', 'abc', '𝄞', 'a😀b', '\u0000', '\uffff', '\ud7ff\ue000']) {
      expect(hasUnpairedSurrogate(text), JSON.stringify(text)).toBe(false);
    }
  });

  it('finds a lone high or low surrogate anywhere', () => {
    for (const text of ['\ud800', 'sliced\ud800', '\udc00', 'a\udfffb', '\udd1e\ud834', '𝄞\ud834', '\ud834\ud834\udd1e', '\ud834\udd1e\udd1e']) {
      expect(hasUnpairedSurrogate(text), JSON.stringify(text)).toBe(true);
    }
  });
});

describe('isStorableText', () => {
  it('refuses U+0000 and unpaired surrogates', () => {
    expect(isStorableText('Dana')).toBe(true);
    expect(isStorableText('Dana\u0000')).toBe(false);
    expect(isStorableText('sliced\ud800')).toBe(false);
  });
});

describe('findUnstorable (2.7 step 6)', () => {
  it('returns null for storable values of every type', () => {
    expect(findUnstorable({ a: [1, true, null, 'x', { '𝄞': '😀' }], b: 2.5 })).toBeNull();
    expect(findUnstorable(42)).toBeNull();
    expect(findUnstorable(null)).toBeNull();
  });

  it('names the path of a bad string, indices as numbers', () => {
    expect(findUnstorable({ input: { name: 'Dana\u0000' } })).toBe('input.name');
    expect(findUnstorable({ a: [{ b: 'ok' }, { b: 'x\udc00' }] })).toBe('a.1.b');
    expect(findUnstorable({ name: 'receive\u0000webhook' }, 'event')).toBe('event.name');
  });

  it('returns the base path for a bad root string', () => {
    expect(findUnstorable('\u0000')).toBe('');
    expect(findUnstorable('\ud800', 'event.input')).toBe('event.input');
  });

  it('checks keys, a key before its value', () => {
    expect(findUnstorable({ ok: 1, 'bad\u0000key': 'also\u0000bad' })).toBe('bad\u0000key');
    expect(findUnstorable({ nested: { '\ud800': 1 } }, 'event.metadata')).toBe('event.metadata.nested.\ud800');
  });

  it('returns the first problem in document order', () => {
    expect(findUnstorable({ b: ['fine', '\u0000'], a: '\u0000' })).toBe('b.1');
    expect(findUnstorable([['\ud800'], '\u0000'])).toBe('0.0');
  });

  it('walks an own __proto__ key', () => {
    const value = JSON.parse('{"__proto__":{"x":"\\u0000"}}') as unknown;
    expect(findUnstorable(value, 'event.input')).toBe('event.input.__proto__.x');
  });
});
