import { describe, expect, it } from 'vitest';
import { InvalidDateError, parseDateRange, parseRangeDate } from './range-dates.ts';

const at = (iso: string) => Date.parse(iso);

describe('parseRangeDate', () => {
  it.each([
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2026-03-01T12:30Z', '2026-03-01T12:30:00.000Z'],
    ['2026-03-01T12:30:15Z', '2026-03-01T12:30:15.000Z'],
    ['2026-03-01T12:30:15.5Z', '2026-03-01T12:30:15.500Z'],
    ['2026-03-01T12:30:15.123+02:00', '2026-03-01T10:30:15.123Z'],
    ['2026-03-01T00:00:00-05:30', '2026-03-01T05:30:00.000Z'],
    ['0099-01-01', '0099-01-01T00:00:00.000Z'],
  ])('reads %s', (text, expected) => {
    expect(parseRangeDate('--before', text)).toBe(at(expected));
  });

  it.each([
    ['2026-03-01T12:30:15', 'has no offset'],
    ['2026-03-01T12:30', 'has no offset'],
    ['2026-02-30', 'not a calendar date'],
    ['2025-02-29', 'not a calendar date'],
    ['2026-13-01', 'not a calendar date'],
    ['2026-03-01T24:00Z', 'not a valid timestamp'],
    ['2026-03-01T12:60Z', 'not a valid timestamp'],
    ['2026-03-01T12:00+24:00', 'not a valid timestamp'],
    ['2026-03-01T12:00:00.1234Z', 'must be a date'],
    ['2026-3-1', 'must be a date'],
    ['yesterday', 'must be a date'],
    ['', 'must be a date'],
    ['2026-03-01 12:00Z', 'must be a date'],
  ])('refuses %s', (text, message) => {
    expect(() => parseRangeDate('--after', text)).toThrow(InvalidDateError);
    expect(() => parseRangeDate('--after', text)).toThrow(message);
  });
});

describe('parseDateRange', () => {
  it('defaults --after to the beginning of time', () => {
    expect(parseDateRange('2026-03-01', undefined)).toEqual({ afterMs: null, beforeMs: at('2026-03-01T00:00:00Z') });
  });

  it('compares instants, not texts', () => {
    expect(parseDateRange('2026-03-01T01:00+02:00', '2026-02-28T22:59:59.999Z')).toEqual({
      afterMs: at('2026-02-28T22:59:59.999Z'),
      beforeMs: at('2026-02-28T23:00:00Z'),
    });
    // Earlier as text, later as an instant.
    expect(() => parseDateRange('2026-03-01T01:00+02:00', '2026-03-01T00:30+01:00')).toThrow(InvalidDateError);
  });

  it('refuses --after that is not earlier than --before', () => {
    expect(() => parseDateRange('2026-03-01', '2026-03-01')).toThrow('--after must be earlier than --before');
    expect(() => parseDateRange('2026-03-01T00:00Z', '2026-03-01T01:00+01:00')).toThrow('--after must be earlier than --before');
    expect(() => parseDateRange('2026-03-01', '2026-04-01')).toThrow(InvalidDateError);
  });
});
