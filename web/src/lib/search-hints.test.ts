import { describe, expect, it } from 'vitest';
import { fieldPathsMatching, looseMatchWording } from './search-hints.ts';

describe('search hints', () => {
  it('says what a loose match ignored', () => {
    expect(looseMatchWording(3, false, 'ADA@example.com')).toBe('3 journeys match ignoring case');
    expect(looseMatchWording(1, false, 'a@b.co')).toBe('1 journey matches ignoring case');
    expect(looseMatchWording(50, true, '020 7946 0018')).toBe('more than 50 journeys match ignoring how the number is written');
  });

  it('finds the field paths a word names, by whole segment and ignoring case', () => {
    const fields = [{ path: 'customer.phone' }, { path: 'items[0].Phone' }, { path: 'telephone_type' }, { path: 'phone' }];
    expect(fieldPathsMatching(fields, ' Phone ').map((f) => f.path)).toEqual(['customer.phone', 'items[0].Phone', 'phone']);
    expect(fieldPathsMatching(fields, 'customer.phone').map((f) => f.path)).toEqual(['customer.phone']);
    expect(fieldPathsMatching(fields, 'tele')).toEqual([]);
    expect(fieldPathsMatching(fields, 'customer phone')).toEqual([]);
  });
});
