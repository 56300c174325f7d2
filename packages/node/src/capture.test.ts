import { describe, expect, it } from 'vitest';
import { isWellFormedText } from './shared-rules.ts';
import { CIRCULAR, PAYLOAD_TOO_LARGE, UNCAPTURABLE, toWireValue, toWireValueFlaggingKeys, truncateString } from './capture.ts';

describe('truncateString (protocol 5.9)', () => {
  it('cuts to 65,536 units in total with the marker counting removed units', () => {
    const cut = truncateString('a'.repeat(70_000));
    expect(cut).toBe(`${'a'.repeat(65_500)}[TRUNCATED: 4500 characters removed]`);
    expect(cut.length).toBe(65_536);
  });

  it('puts CRLF before the marker when the string holds CRLF, and never splits a pair', () => {
    const block = `Authorization: Bearer x\r\n${'v'.repeat(100)}`;
    const cut = truncateString(block, 60);
    expect(cut).toBe('Authorization: Bearer x\r\n[TRUNCATED: 102 characters removed]');
    expect(cut.length).toBeLessThanOrEqual(60);
    const pairs = '😀'.repeat(40);
    const cutPairs = truncateString(pairs, 50);
    expect(cutPairs.length).toBeLessThanOrEqual(50);
    expect(isWellFormedText(cutPairs)).toBe(true);
  });

  it('leaves short strings alone', () => {
    expect(truncateString('short')).toBe('short');
  });
});

describe('toWireValue', () => {
  it('captures host values sensibly', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    const error = Object.assign(new TypeError('bad input'), { code: 'E_BAD' });
    const value = toWireValue({
      when: new Date('2026-01-02T03:04:05.678Z'),
      invalidDate: new Date('nope'),
      big: 12345678901234567890n,
      map: new Map<unknown, unknown>([['k', 1], [2, 'two']]),
      set: new Set(['x', 'y']),
      error,
      bytes: new Uint8Array(16),
      buffer: Buffer.from('hello'),
      cyclic,
      fn: () => 1,
      missing: undefined,
      list: [undefined, () => 1, Number.NaN, Infinity],
    });
    expect(value).toEqual({
      when: '2026-01-02T03:04:05.678Z',
      invalidDate: null,
      big: '12345678901234567890',
      map: { k: 1, '2': 'two' },
      set: ['x', 'y'],
      error: { name: 'TypeError', message: 'bad input', code: 'E_BAD' },
      bytes: '[Uint8Array: 16 bytes]',
      buffer: '[Buffer: 5 bytes]',
      cyclic: { name: 'a', self: CIRCULAR },
      list: [null, null, null, null],
    });
  });

  it('keeps a shared object that is not a cycle', () => {
    const shared = { a: 1 };
    expect(toWireValue({ x: shared, y: shared })).toEqual({ x: { a: 1 }, y: { a: 1 } });
  });

  it('turns a payload with a throwing getter or toJSON into the marker, whole, without throwing', () => {
    const getter = Object.defineProperty({}, 'boom', { enumerable: true, get: () => { throw new Error('no'); } });
    expect(toWireValue({ ok: 'yes', getter })).toBe(UNCAPTURABLE);
    expect(toWireValue({ x: { toJSON: () => { throw new Error('no'); } } })).toBe(UNCAPTURABLE);
    expect(toWireValue({ ok: 'yes' })).toEqual({ ok: 'yes' });
  });

  it('bounds depth and width to the server limits', () => {
    const nest = (depth: number): unknown => {
      let deep: unknown = 'leaf';
      for (let i = 0; i < depth; i++) deep = { n: deep };
      return deep;
    };
    // A payload root sits at level 2 of the envelope, whose depth limit is 32: 30 levels fit,
    // 31 do not, and such a payload is replaced whole rather than cut somewhere inside.
    expect(toWireValue(nest(30))).toEqual(nest(30));
    expect(toWireValue(nest(31))).toBe(PAYLOAD_TOO_LARGE);
    expect(toWireValue(nest(40))).toBe(PAYLOAD_TOO_LARGE);
    expect((toWireValue(Array.from({ length: 1500 }, (_, i) => i)) as unknown[]).length).toBe(1000);
    const wide = Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(toWireValue(wide) as object)).toHaveLength(1000);
  });

  it('keeps __proto__ as an own key', () => {
    const value = toWireValue(JSON.parse('{"__proto__":{"polluted":true}}')) as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('toWireValueFlaggingKeys', () => {
  const isToken = (key: string) => key === 'token';

  it('copies as toWireValue does and flags a key found at any depth, in maps and errors too', () => {
    const value = { a: [{ b: { token: 1 } }] };
    expect(toWireValueFlaggingKeys(value, 2, isToken)).toEqual({ value: toWireValue(value), flagged: true });
    expect(toWireValueFlaggingKeys({ m: new Map([['token', 'x']]) }, 2, isToken).flagged).toBe(true);
    expect(toWireValueFlaggingKeys({ e: Object.assign(new Error('x'), { token: 'y' }) }, 2, isToken).flagged).toBe(true);
    expect(toWireValueFlaggingKeys({ e: new Error('x') }, 2, (key) => key === 'message').flagged).toBe(true);
  });

  it('does not flag a key the copy leaves out, nor a payload without one', () => {
    expect(toWireValueFlaggingKeys({ token: undefined, other: 1 }, 2, isToken).flagged).toBe(false);
    expect(toWireValueFlaggingKeys({ a: { b: [1, 'token'] } }, 2, isToken).flagged).toBe(false);
  });
});

describe('values JSON writes its own way', () => {
  it('boxed primitives, SharedArrayBuffer, a toJSON that returns its own object, and a Proxy whose traps throw', () => {
    expect(toWireValue({ n: new Number(1), s: new String('x'), b: new Boolean(false) })).toEqual({ n: 1, s: 'x', b: false });
    expect(toWireValue(new SharedArrayBuffer(8))).toBe('[SharedArrayBuffer: 8 bytes]');
    const selfish = { a: 1, toJSON() {
      return this;
    } };
    expect(toWireValue(selfish)).toEqual({ a: 1 });
    const hostile = new Proxy({}, { getPrototypeOf() {
      throw new Error('trap');
    } });
    expect(toWireValue({ hostile })).toBe('[UNCAPTURABLE]');
  });
});
