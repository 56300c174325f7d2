import { describe, expect, it } from 'vitest';
import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS, formatTimestamp, parseTimestamp } from './timestamps.ts';

/** Parse then write back, as the service stores and shows an event timestamp. */
const stored = (text: string) => {
  const ms = parseTimestamp(text);
  return ms === null ? null : formatTimestamp(ms);
};

describe('parseTimestamp (2.4)', () => {
  it('stores the same instant in UTC', () => {
    expect(stored('2026-08-06T18:31:02.120+02:00')).toBe('2026-08-06T16:31:02.120Z');
    expect(stored('2026-08-06T18:31:02.120-05:30')).toBe('2026-08-07T00:01:02.120Z');
    expect(stored('2026-08-06T00:10:00-00:00')).toBe('2026-08-06T00:10:00.000Z');
    expect(stored('2026-01-01T00:30:00+01:00')).toBe('2025-12-31T23:30:00.000Z');
  });

  it('truncates the fraction to milliseconds, never rounding', () => {
    expect(stored('2026-08-06T18:31:02.1239999Z')).toBe('2026-08-06T18:31:02.123Z');
    expect(stored('2026-08-06T23:59:59.9999999Z')).toBe('2026-08-06T23:59:59.999Z');
    expect(stored('1969-12-31T23:59:59.9999Z')).toBe('1969-12-31T23:59:59.999Z');
    expect(parseTimestamp('1969-12-31T23:59:59.9999Z')).toBe(-1);
  });

  it('takes any number of fraction digits', () => {
    expect(stored('2026-08-06T18:31:02.1Z')).toBe('2026-08-06T18:31:02.100Z');
    expect(stored('2026-08-06T18:31:02.12Z')).toBe('2026-08-06T18:31:02.120Z');
    expect(stored(`2026-08-06T18:31:02.${'9'.repeat(40)}Z`)).toBe('2026-08-06T18:31:02.999Z');
  });

  it('reads missing seconds as :00', () => {
    expect(stored('2026-08-06T18:31Z')).toBe('2026-08-06T18:31:00.000Z');
    expect(stored('2026-08-06T18:31+02:00')).toBe('2026-08-06T16:31:00.000Z');
    expect(stored('2026-08-06T18:31:02Z')).toBe('2026-08-06T18:31:02.000Z');
  });

  it('agrees with Date.parse on ordinary timestamps', () => {
    for (const text of [
      '1970-01-01T00:00:00.000Z',
      '2000-02-29T12:00:00.500Z',
      '2026-08-06T18:31:02.120+02:00',
      '2099-12-31T23:59:59.999-11:45',
      '1901-03-04T05:06:07.089+14:00',
    ]) {
      expect(parseTimestamp(text)).toBe(Date.parse(text));
    }
  });

  it('refuses a timestamp without an offset rather than assuming UTC', () => {
    expect(parseTimestamp('2026-08-06T18:31:02')).toBeNull();
    expect(parseTimestamp('2026-08-06T18:31:02.000')).toBeNull();
    expect(parseTimestamp('2026-08-06T18:31')).toBeNull();
  });

  it('refuses other forms', () => {
    for (const text of [
      '',
      '2026-08-06',
      '2026-08-06t18:31:02Z', // lower-case t
      '2026-08-06T18:31:02z', // lower-case z
      '2026-08-06 18:31:02Z', // space
      '2026-08-06T18:31:02+0200', // offset without colon
      '2026-08-06T18:31:02+02', // offset without minutes
      '2026-08-06T18:31:02.Z', // no fraction digits
      '2026-08-06T18:31.5Z', // fraction without seconds
      '2026-8-06T18:31:02Z',
      '2026-08-06T8:31:02Z',
      '+2026-08-06T18:31:02Z',
      '12026-08-06T18:31:02Z',
      '２０２６-08-06T18:31:02Z', // full-width digits
      '2026-08-06T18:31:02Z ',
      ' 2026-08-06T18:31:02Z',
      '2026-08-06T18:31:02ZZ',
      '2026-08-06T18:31:02,123Z', // comma fraction
    ]) {
      expect(parseTimestamp(text), text).toBeNull();
    }
  });

  it('checks ranges: hours 00–23, minutes and seconds 00–59, offsets', () => {
    expect(parseTimestamp('2026-08-06T23:59:59Z')).not.toBeNull();
    expect(parseTimestamp('2026-08-06T24:00:00Z')).toBeNull();
    expect(parseTimestamp('2026-08-06T18:60:00Z')).toBeNull();
    expect(parseTimestamp('2026-08-06T18:31:60Z')).toBeNull(); // no leap seconds
    expect(parseTimestamp('2026-08-06T18:31:02+23:59')).not.toBeNull();
    expect(parseTimestamp('2026-08-06T18:31:02+24:00')).toBeNull();
    expect(parseTimestamp('2026-08-06T18:31:02+01:60')).toBeNull();
  });

  it('requires a real calendar date', () => {
    expect(parseTimestamp('2026-02-29T00:00Z')).toBeNull();
    expect(parseTimestamp('2024-02-29T00:00Z')).not.toBeNull();
    expect(parseTimestamp('2000-02-29T00:00Z')).not.toBeNull();
    expect(parseTimestamp('1900-02-29T00:00Z')).toBeNull();
    expect(parseTimestamp('2026-04-31T00:00Z')).toBeNull();
    expect(parseTimestamp('2026-12-31T00:00Z')).not.toBeNull();
    expect(parseTimestamp('2026-13-01T00:00Z')).toBeNull();
    expect(parseTimestamp('2026-00-01T00:00Z')).toBeNull();
    expect(parseTimestamp('2026-01-00T00:00Z')).toBeNull();
  });

  it('requires the UTC year to be 0001–9999', () => {
    expect(stored('0001-01-01T00:00:00.000Z')).toBe('0001-01-01T00:00:00.000Z');
    expect(parseTimestamp('0001-01-01T00:30:00+01:00')).toBeNull(); // 0000-12-31 UTC
    expect(stored('0000-12-31T23:30:00-01:00')).toBe('0001-01-01T00:30:00.000Z');
    expect(parseTimestamp('0000-06-01T00:00Z')).toBeNull();
    expect(stored('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
    expect(parseTimestamp('9999-12-31T23:30:00-01:00')).toBeNull(); // 10000 UTC
    expect(stored('0099-01-01T00:00Z')).toBe('0099-01-01T00:00:00.000Z'); // not 1999
  });
});

describe('formatTimestamp', () => {
  it('writes YYYY-MM-DDThh:mm:ss.sssZ', () => {
    expect(formatTimestamp(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(formatTimestamp(Date.UTC(2026, 7, 6, 16, 31, 2, 120))).toBe('2026-08-06T16:31:02.120Z');
    expect(formatTimestamp(MIN_TIMESTAMP_MS)).toBe('0001-01-01T00:00:00.000Z');
    expect(formatTimestamp(MAX_TIMESTAMP_MS)).toBe('9999-12-31T23:59:59.999Z');
  });

  it('floors a fractional millisecond (a microsecond clock / 1,000)', () => {
    expect(formatTimestamp(1.999)).toBe('1970-01-01T00:00:00.001Z');
    expect(formatTimestamp(-0.5)).toBe('1969-12-31T23:59:59.999Z');
  });

  it('refuses instants outside 0001–9999 and non-numbers', () => {
    expect(() => formatTimestamp(MIN_TIMESTAMP_MS - 1)).toThrow(RangeError);
    expect(() => formatTimestamp(MAX_TIMESTAMP_MS + 1)).toThrow(RangeError);
    expect(() => formatTimestamp(Number.NaN)).toThrow(RangeError);
    expect(() => formatTimestamp(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
