import { describe, expect, it } from 'vitest';
import { ArrayLiteral, textElement } from './array-literals.ts';

const literal = (build: (a: ArrayLiteral) => void) => {
  const array = new ArrayLiteral();
  build(array);
  return array.toString();
};

describe('array literals', () => {
  it('quotes every text element, escaping quotes and backslashes, and writes null as NULL', () => {
    expect(literal((a) => ['plain', 'NULL', '', 'a"b\\c', '{x,y}', ' '].forEach((v) => a.text(v)))).toBe(
      String.raw`{"plain","NULL","","a\"b\\c","{x,y}"," "}`,
    );
    expect(literal((a) => a.text(null))).toBe('{NULL}');
  });

  it('quotes a text element only when array syntax would read it otherwise', () => {
    expect(literal((a) => ['plain', 'NULL', 'nUlL', '', 'a"b\\c', '{x,y}', ' ', 'a\tb', 'nulls', '\u{1F600}'].forEach((v) => a.plain(textElement(v))))).toBe(
      String.raw`{plain,"NULL","nUlL","","a\"b\\c","{x,y}"," ","a	b",nulls,` + '\u{1F600}}',
    );
  });

  it('writes plain elements as they are, and an empty array', () => {
    expect(literal((a) => ['1', 't', '2026-03-01T00:00:00.000Z'].forEach((v) => a.plain(v)))).toBe('{1,t,2026-03-01T00:00:00.000Z}');
    expect(literal(() => undefined)).toBe('{}');
  });
});
