import { describe, expect, it } from 'vitest';
import { ArrayLiteral } from './array-literals.ts';

const literal = (build: (a: ArrayLiteral) => void) => {
  const array = new ArrayLiteral();
  build(array);
  return array.toString();
};

describe('array literals', () => {
  it('quotes the text elements array syntax would read otherwise, escaping quotes and backslashes, and writes null as NULL', () => {
    expect(literal((a) => ['plain', 'NULL', 'nUlL', '', 'a"b\\c', '{x,y}', ' ', 'a\tb', 'nulls', '\u{1F600}'].forEach((v) => a.text(v)))).toBe(
      String.raw`{plain,"NULL","nUlL","","a\"b\\c","{x,y}"," ","a	b",nulls,` + '\u{1F600}}',
    );
    expect(literal((a) => a.text(null))).toBe('{NULL}');
  });

  it('writes plain elements as they are, and an empty array', () => {
    expect(literal((a) => ['1', 't', '2026-03-01T00:00:00.000Z'].forEach((v) => a.plain(v)))).toBe('{1,t,2026-03-01T00:00:00.000Z}');
    expect(literal(() => undefined)).toBe('{}');
  });
});
