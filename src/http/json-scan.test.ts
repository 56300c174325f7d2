import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonScanner, MAX_PARSE_DEPTH, nestsWithin, parseJsonWithBudget } from './json-scan.ts';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The scanner's verdict on text fed in pieces cut at the given points. */
function scanValid(text: string, cuts: number[] = []): boolean {
  const scanner = new JsonScanner(false);
  let from = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < text.length).sort((a, b) => a - b), text.length]) {
    scanner.push(text.slice(from, cut));
    from = cut;
  }
  return scanner.end() !== null;
}

const SAMPLES = [
  '0', '-0', '01', '-', '1.', '1.5', '1e5', '1E+5', '1e', '1e+', '.5', '+1', '1.5e-3', ' 12 ', '12 3',
  'true', 'tru', 'truex', 'false', 'null', 'nul', '""', '"a', '"\\u12"', '"\\u12ab"', '"\\x"', '"\\/"', '"\u0001"',
  '[]', '[', ']', '[1,]', '[,1]', '[1 2]', '[1,[2,{}]]', '{}', '{"a"}', '{"a":}', '{"a":1,}', '{"a":1}', '{1:2}',
  '{"a":[1,{"b":null}]}', '{"a":1 "b":2}', '[}', '{]', '', '   ', '\ufeff{}', '[1]x', '{"a":"b"}}',
];

describe('JsonScanner', () => {
  it.each(SAMPLES)('agrees with JSON.parse on %j', (text) => {
    expect(scanValid(text)).toBe(parses(text));
    expect(scanValid(text, [1, 2, 3])).toBe(parses(text));
  });

  it('agrees with JSON.parse on generated JSON and its mutations, whatever the chunking', () => {
    const mutated = fc.tuple(fc.json(), fc.nat(), fc.constantFrom('', '[', ']', '{', '}', ',', ':', '"', '\\', '1', 'e', '-', '.', ' ')).map(
      ([text, at, piece]) => text.slice(0, at % (text.length + 1)) + piece + text.slice(at % (text.length + 1)),
    );
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutated), fc.array(fc.nat({ max: 200 }), { maxLength: 4 }), (text, cuts) => {
        expect(scanValid(text, cuts)).toBe(parses(text));
      }),
      { numRuns: 500 },
    );
  });

  it('measures nesting in bounded memory: millions of brackets take a bit each', () => {
    const n = 2_000_000;
    const scanner = new JsonScanner(false);
    scanner.push('{"events":' + '['.repeat(n));
    scanner.push(']'.repeat(n) + '}');
    expect(scanner.end()).toBe('');
    expect(scanner.maxDepth).toBe(n + 1);
  });
});

describe('parseJsonWithBudget', () => {
  it('parses text within the budget as JSON.parse does', () => {
    const text = '{"a":[1,{"__proto__":{"x":1}},"s"],"a":2}';
    expect(parseJsonWithBudget(text)!.value).toEqual(JSON.parse(text));
    expect(parseJsonWithBudget('{"a":')).toBeNull();
  });

  it('replaces every container beyond the budget by [] and keeps everything else', () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const text = `{"a":${deep(3)},"b":[${deep(5)},7],"c":"${'['.repeat(9)}"}`;
    expect(parseJsonWithBudget(text, 3)!.value).toEqual({ a: [[[]]], b: [[[]], 7], c: '['.repeat(9) }); // `{` is the first level
    expect(parseJsonWithBudget(deep(MAX_PARSE_DEPTH + 1_000_000))!.value).toEqual(JSON.parse(deep(MAX_PARSE_DEPTH + 1)));
  });

  it('reads generated JSON, its mutations and deep bodies as the full scan does', () => {
    const viaScan = (text: string, budget: number) => {
      const scanner = new JsonScanner(true, budget);
      scanner.push(text);
      const kept = scanner.end();
      return kept === null ? null : { value: JSON.parse(kept) as unknown, pruned: scanner.maxDepth > budget };
    };
    const nested = fc.tuple(fc.nat({ max: 12 }), fc.json()).map(([n, inner]) => '{"a":'.repeat(n) + inner + '}'.repeat(n));
    const mutated = fc.tuple(fc.oneof(fc.json(), nested), fc.nat(), fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', ',')).map(
      ([text, at, piece]) => text.slice(0, at % (text.length + 1)) + piece + text.slice(at % (text.length + 1)),
    );
    fc.assert(
      fc.property(fc.oneof(fc.json(), nested, mutated), fc.integer({ min: 1, max: 8 }), (text, budget) => {
        expect(parseJsonWithBudget(text, budget)).toEqual(viaScan(text, budget));
      }),
      { numRuns: 1000 },
    );
  });

  it('counts nesting outside strings only, escapes included', () => {
    expect(nestsWithin('{"a":"[[[[\\"}', 1)).toBe(true);
    expect(nestsWithin('{"a":"\\\\",[[', 2)).toBe(false);
    expect(nestsWithin('["\\"[[["]', 1)).toBe(true);
    expect(nestsWithin('[' + '"x",'.repeat(1000) + '[[]]]', 2)).toBe(false);
  });

  it('prunes across chunks', () => {
    const scanner = new JsonScanner(true, 2);
    for (const piece of ['{"a":[[', '[[1]]', ']', ',2],"b":[[[', ']]]}']) scanner.push(piece);
    expect(JSON.parse(scanner.end()!)).toEqual({ a: [[], 2], b: [[]] });
  });
});
