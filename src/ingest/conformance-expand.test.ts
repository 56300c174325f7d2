import { describe, expect, it } from 'vitest';
import {
  CaseExpansionError,
  SDK_HOST_TAGS,
  expandCase,
  expandValue,
  findUnknownCaseKeys,
  newRunToken,
} from './conformance-expand.ts';

const expand = (value: unknown, run = 'r1') => expandValue(value, { run });
const fromJson = (text: string) => JSON.parse(text) as unknown;

describe('expandValue: {{run}} (11.3)', () => {
  it('replaces every occurrence in strings and keys', () => {
    expect(expand({ 'jrn_{{run}}': ['evt_{{run}}_{{run}}', 1, null, true] })).toEqual({ jrn_r1: ['evt_r1_r1', 1, null, true] });
  });

  it('leaves other braces alone', () => {
    expect(expand('{{runs}} {run} {{RUN}}')).toBe('{{runs}} {run} {{RUN}}');
  });
});

describe('expandValue: builders', () => {
  it('$string repeats any string, count 0 included', () => {
    expect(expand({ $string: { char: '𝄞', count: 3 } })).toBe('𝄞𝄞𝄞');
    expect(expand({ $string: { char: 'ab', count: 0 } })).toBe('');
    expect((expand({ $string: { char: 'a', count: 70_000 } }) as string).length).toBe(70_000);
  });

  it('$array makes independent expanded copies', () => {
    const items = expand({ $array: { value: { id: 'x_{{run}}', s: { $string: { char: 'v', count: 2 } } }, count: 3 } }) as object[];
    expect(items).toEqual([{ id: 'x_r1', s: 'vv' }, { id: 'x_r1', s: 'vv' }, { id: 'x_r1', s: 'vv' }]);
    expect(items[0]).not.toBe(items[1]);
  });

  it('$nest wraps the leaf depth times in {"n": …}', () => {
    expect(expand({ $nest: { depth: 0, leaf: 1 } })).toBe(1);
    expect(expand({ $nest: { depth: 2, leaf: { $string: { char: 'a', count: 2 } } } })).toEqual({ n: { n: 'aa' } });
  });

  it('$concat joins expanded pieces', () => {
    expect(expand({ $concat: ['x-internal-token: ', { $string: { char: 'v', count: 3 } }, '[TRUNCATED: 1 characters removed]'] })).toBe(
      'x-internal-token: vvv[TRUNCATED: 1 characters removed]',
    );
    expect(expand({ $concat: ['n', 1, '_{{run}}'] })).toBe('n1_r1');
  });

  it('$literal keeps data as it is, only {{run}} replaced', () => {
    expect(expand({ $literal: { $string: { char: '{{run}}', count: 2 }, 'k{{run}}': ['{{run}}'] } })).toEqual({
      $string: { char: 'r1', count: 2 },
      kr1: ['r1'],
    });
  });

  it('keeps matchers as they are, {{run}} replaced', () => {
    expect(expand({ displayValue: { $matches: '^evt_{{run}}$' }, stack: { $absent: true } })).toEqual({
      displayValue: { $matches: '^evt_r1$' },
      stack: { $absent: true },
    });
  });

  it('treats an object with several keys as data, even with $ keys', () => {
    expect(expand({ $string: 1, other: 2 })).toEqual({ $string: 1, other: 2 });
  });

  it('keeps __proto__ an own key, at every depth', () => {
    const value = expand(fromJson('{"__proto__":{"__proto__":"p_{{run}}"},"a":{"$array":{"value":{"__proto__":1},"count":1}}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"__proto__":"p_r1"},"a":[{"__proto__":1}]}');
  });
});

describe('expandValue: malformed cases', () => {
  it('refuses sdk host tags in a wire case and unknown tags', () => {
    expect(SDK_HOST_TAGS).toContain('$date');
    expect(() => expand({ $date: '2026-01-01' })).toThrow(CaseExpansionError);
    expect(() => expand({ $bogus: 1 })).toThrow(/Unknown tag \$bogus/);
  });

  it('hands host tags to a runner that supports them', () => {
    const value = expandValue({ at: { $date: 'd_{{run}}' } }, {
      run: 'r2',
      hostTag: (tag, argument, inner) => ({ tag, value: inner(argument) }),
    });
    expect(value).toEqual({ at: { tag: '$date', value: 'd_r2' } });
  });

  it('refuses bad builder arguments', () => {
    for (const bad of [
      { $string: { char: 'a' } },
      { $string: { char: 'a', count: -1 } },
      { $string: { char: 'a', count: 1.5 } },
      { $string: { char: 1, count: 1 } },
      { $string: { char: 'a', count: 1, extra: 0 } },
      { $array: [1, 2] },
      { $nest: { depth: '2', leaf: 1 } },
      { $concat: 'abc' },
      { $concat: ['a', { b: 1 }] },
    ]) {
      expect(() => expand(bad), JSON.stringify(bad)).toThrow(CaseExpansionError);
    }
  });
});

describe('expandCase', () => {
  const caseDocument = {
    id: 'wire/x',
    title: 'keeps {{run}} in the title',
    layer: 'wire',
    send: { events: [{ event: { id: 'evt_{{run}}' } }] },
    expect: { results: [{ eventId: 'evt_{{run}}' }] },
    setup: { existing: [{ s: { $string: { char: 'a', count: 2 } } }] },
  };

  it('expands setup, send and expect only, without touching the original', () => {
    const expanded = expandCase(caseDocument, { run: 'abc' });
    expect(expanded).toEqual({
      ...caseDocument,
      send: { events: [{ event: { id: 'evt_abc' } }] },
      expect: { results: [{ eventId: 'evt_abc' }] },
      setup: { existing: [{ s: 'aa' }] },
    });
    expect(caseDocument.send.events[0]?.event.id).toBe('evt_{{run}}');
  });

  it('lists keys outside 11.2', () => {
    expect(findUnknownCaseKeys(caseDocument)).toEqual([]);
    expect(findUnknownCaseKeys({ ...caseDocument, comment: 'x', expected: {} })).toEqual(['comment', 'expected']);
  });
});

describe('newRunToken', () => {
  it('is short, ASCII alphanumeric and fresh each time', () => {
    const tokens = new Set(Array.from({ length: 50 }, newRunToken));
    expect(tokens.size).toBe(50);
    for (const token of tokens) expect(token).toMatch(/^[a-z0-9]{8,16}$/);
  });
});
