import { describe, expect, it } from 'vitest';
import { maskAliasValue } from './alias-mask.ts';

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
