import { describe, expect, it } from 'vitest';
import type { ValidEvent } from './envelope-types.ts';
import { findUnstorable, findUnstorableEventValue, hasUnpairedSurrogate, isStorableText } from './storability.ts';

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

describe('findUnstorableEventValue (2.7 step 6, 12.5: one decision per event)', () => {
  const event = (extra: Partial<ValidEvent> = {}): ValidEvent => ({
    id: 'evt_1', journeyId: 'jrn_1', environment: 'production', service: 'svc', entity: { type: 'order', id: 'o-1' },
    operation: 'received', name: 'step', timestamp: '2026-08-06T16:31:02.120Z', timestampMs: 0, ...extra,
  });
  const nothingKept = { input: null, output: null, error: null, runtime: null, deployment: null, metadata: null };

  it('refuses an unpaired surrogate anywhere, even in a value capture drops', () => {
    expect(findUnstorableEventValue(event({ input: { a: ['x\uDC00'] } }), nothingKept)).toBe('event.input.a.0');
    expect(findUnstorableEventValue(event({ aliases: { mail: 'a\uD800' } }), nothingKept)).toBe('event.aliases.mail');
    expect(findUnstorableEventValue(event({ entity: { type: 'order', id: '\uDC00\uD800' } }), nothingKept)).toBe('event.entity.id');
    expect(findUnstorableEventValue(event({ metadata: { ['k\uD800']: 1 } }), nothingKept)).toBe('event.metadata.k\uD800');
  });

  it('refuses NUL only where the value is stored in the clear', () => {
    expect(findUnstorableEventValue(event({ entity: { type: 'order', id: 'o\u0000' }, aliases: { mail: 'a\u0000' } }), nothingKept)).toBeNull();
    expect(findUnstorableEventValue(event({ input: { a: 'x\u0000' } }), nothingKept)).toBeNull();
    expect(findUnstorableEventValue(event({ input: { a: 'x\u0000' } }), { ...nothingKept, input: { a: 'x\u0000' } })).toBe('event.input.a');
    expect(findUnstorableEventValue(event({ aliases: { ['m\u0000']: 'a' } }), nothingKept)).toBe('event.aliases.m\u0000');
    expect(findUnstorableEventValue(event({ name: 'st\u0000ep' }), nothingKept)).toBe('event.name');
  });
});
