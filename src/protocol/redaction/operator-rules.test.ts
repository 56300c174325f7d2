import { describe, expect, it } from 'vitest';
import { compileRules, isValidRedactionRule, parseRedactionRule } from './operator-rules.ts';

describe('parseRedactionRule', () => {
  it('parses a literal path, folding each name', () => {
    expect(parseRedactionRule('customer.SSN')).toEqual({
      kind: 'path',
      source: 'customer.SSN',
      steps: [
        { kind: 'key', folded: 'customer' },
        { kind: 'key', folded: 'ssn' },
      ],
    });
  });

  it('parses a single name', () => {
    expect(parseRedactionRule('x-internal_Token')).toEqual({
      kind: 'path',
      source: 'x-internal_Token',
      steps: [{ kind: 'key', folded: 'xinternaltoken' }],
    });
  });

  it('parses * as any object key', () => {
    expect(parseRedactionRule('*.password')).toEqual({
      kind: 'path',
      source: '*.password',
      steps: [{ kind: 'any-key' }, { kind: 'key', folded: 'password' }],
    });
    expect(parseRedactionRule('*')?.kind).toBe('path');
  });

  it('parses name[*] and *[*] as a key then its elements', () => {
    expect(parseRedactionRule('items[*].cardNumber')).toEqual({
      kind: 'path',
      source: 'items[*].cardNumber',
      steps: [{ kind: 'key', folded: 'items' }, { kind: 'elements' }, { kind: 'key', folded: 'cardnumber' }],
    });
    expect(parseRedactionRule('*[*]')).toEqual({
      kind: 'path',
      source: '*[*]',
      steps: [{ kind: 'any-key' }, { kind: 'elements' }],
    });
  });

  it('parses [*] as the first segment only', () => {
    expect(parseRedactionRule('[*].token')).toEqual({
      kind: 'path',
      source: '[*].token',
      steps: [{ kind: 'elements' }, { kind: 'key', folded: 'token' }],
    });
    expect(parseRedactionRule('[*]')).toEqual({ kind: 'path', source: '[*]', steps: [{ kind: 'elements' }] });
  });

  it('parses **.name as a name at any depth', () => {
    expect(parseRedactionRule('**.x-internal-token')).toEqual({
      kind: 'any-depth',
      source: '**.x-internal-token',
      folded: 'xinternaltoken',
    });
  });

  it('keeps __proto__ and other unusual literal names', () => {
    expect(parseRedactionRule('__proto__.a')?.kind).toBe('path');
    expect(parseRedactionRule('first name')?.kind).toBe('path');
    expect(parseRedactionRule('a-b_c.$ref')?.kind).toBe('path');
  });

  it.each([
    [''],
    ['.'],
    ['a.'],
    ['.a'],
    ['a..b'],
    ['**'],
    ['**.'],
    ['**.a.b'],
    ['**.*'],
    ['**.a[*]'],
    ['a.**.b'],
    ['a.**'],
    ['***.a'],
    ['a.[*]'],
    ['a[*][*]'],
    ['[*][*]'],
    ['a[0]'],
    ['a[]'],
    ['a[*]b'],
    ['a*'],
    ['*a'],
    ['a]'],
    ['[a'],
    [' customer.ssn'],
    ['customer.ssn '],
    ['customer. ssn'],
    ['   '],
    ['a\tb'],
    ['a\u0000b'],
  ])('refuses the malformed rule %j', (rule) => {
    expect(parseRedactionRule(rule)).toBeNull();
    expect(isValidRedactionRule(rule)).toBe(false);
  });

  it.each([['customer.ssn'], ['*.password'], ['items[*].cardNumber'], ['**.x-internal-token'], ['[*]'], ['*[*].a']])(
    'accepts %j',
    (rule) => {
      expect(isValidRedactionRule(rule)).toBe(true);
    },
  );
});

describe('compileRules', () => {
  it('keeps valid rules in order and lists malformed ones as given', () => {
    const { rules, malformed } = compileRules(['a.b', 'a..b', '**.token', '**', 'x[*]']);
    expect(rules.map((rule) => rule.source)).toEqual(['a.b', '**.token', 'x[*]']);
    expect(malformed).toEqual(['a..b', '**']);
  });

  it('returns empty lists for no rules', () => {
    expect(compileRules([])).toEqual({ rules: [], malformed: [] });
  });

  it('treats a non-string rule from stored settings as malformed', () => {
    const { rules, malformed } = compileRules([42 as unknown as string]);
    expect(rules).toEqual([]);
    expect(malformed).toEqual(['42']);
  });
});
