import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength, hasNul, isUuid, isWellFormedText, isWellFormedTextByPattern, normalizeIdentifier, utf8ByteLength } from './identifiers.ts';

describe('normalizeIdentifier (4.2)', () => {
  it('trims surrounding white space, Unicode included', () => {
    expect(normalizeIdentifier('  cus_88213\t\n')).toBe('cus_88213');
    expect(normalizeIdentifier('\u00a0\u3000\ufeffcus_1\u2003')).toBe('cus_1');
    expect(normalizeIdentifier('a b')).toBe('a b');
  });

  it('lower-cases a UUID-form value, and only that', () => {
    expect(normalizeIdentifier('3F2504E0-4F89-11D3-9A0C-0305E82C3301')).toBe('3f2504e0-4f89-11d3-9a0c-0305e82c3301');
    expect(normalizeIdentifier(' 3F2504E0-4F89-11D3-9A0C-0305E82C3301 ')).toBe('3f2504e0-4f89-11d3-9a0c-0305e82c3301');
    expect(normalizeIdentifier('0018Z00002ABC')).toBe('0018Z00002ABC');
    expect(normalizeIdentifier('Someone@Example.com')).toBe('Someone@Example.com');
  });

  it('keeps near-UUIDs as they are', () => {
    for (const value of [
      '3F2504E0-4F89-11D3-9A0C-0305E82C330', // 11 digits at the end
      '3F2504E04F8911D39A0C0305E82C3301', // no hyphens
      '{3F2504E0-4F89-11D3-9A0C-0305E82C3301}', // braces
      'GF2504E0-4F89-11D3-9A0C-0305E82C3301', // not hex
      'urn:uuid:3F2504E0-4F89-11D3-9A0C-0305E82C3301',
    ]) {
      expect(normalizeIdentifier(value)).toBe(value);
    }
  });
});

describe('identifier text checks', () => {
  it('recognizes the UUID form in either case only', () => {
    expect(isUuid('3F2504E0-4F89-11D3-9A0C-0305E82C3301')).toBe(true);
    expect(isUuid('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(true);
    expect(isUuid('3F2504E04F8911D39A0C0305E82C3301')).toBe(false);
    expect(isUuid(' 3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(false);
  });

  it('finds NUL, counts code points and spots unpaired surrogates', () => {
    expect(hasNul('a\u0000b')).toBe(true);
    expect(hasNul('ab')).toBe(false);
    expect(codePointLength('a😀')).toBe(2);
    expect(isWellFormedText('a😀')).toBe(true);
    expect(isWellFormedText('a\uD83D')).toBe(false);
    expect(isWellFormedText('\uDE00a')).toBe(false);
  });

  it('tells well-formed text as the pattern does, for any string', () => {
    const unit = fc.constantFrom('a', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D\uDE00', 'é', '\u0000');
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.array(unit, { maxLength: 8 }).map((u) => u.join('')));
    fc.assert(fc.property(text, (value) => {
      expect(isWellFormedText(value)).toBe(isWellFormedTextByPattern(value));
    }), { numRuns: 3000 });
  });
});

describe('utf8ByteLength', () => {
  it('agrees with Buffer.byteLength, unpaired surrogates included', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a\uD83Db', '\uDE00', 'x\uD83D', '\u0000', 'ü😀€a\uDBFF\uDFFF']) {
      expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });
});
