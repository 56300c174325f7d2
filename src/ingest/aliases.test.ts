import { describe, expect, it } from 'vitest';
import { maskAliasValue, normalizeIdentifier } from './aliases.ts';

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

describe('maskAliasValue (4.3, 12.2)', () => {
  it('keeps the first 4 and last 3 code points', () => {
    expect(maskAliasValue('someone@example.com')).toBe('some…com');
    expect(maskAliasValue('greenhouse:4567')).toBe('gree…567');
    expect(maskAliasValue('alias-under-proto')).toBe('alia…oto');
  });

  it('masks 8 code points or fewer to the ellipsis alone', () => {
    expect(maskAliasValue('')).toBe('…');
    expect(maskAliasValue('abcdefgh')).toBe('…');
    expect(maskAliasValue('abcdefghi')).toBe('abcd…ghi');
  });

  it('counts code points, never splitting a surrogate pair', () => {
    expect(maskAliasValue('𝄞'.repeat(8))).toBe('…'); // 16 UTF-16 units
    expect(maskAliasValue('𝄞'.repeat(9))).toBe('𝄞𝄞𝄞𝄞…𝄞𝄞𝄞');
    expect(maskAliasValue('a😀bcdefgh😀')).toBe('a😀bc…gh😀');
  });

  it('uses U+2026', () => {
    expect(maskAliasValue('x')).toBe('\u2026');
  });
});
