import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.ts';
import { ceilMicros, compareInstants, parseInstant, parseLimit } from '../http/query.ts';
import { decodeJourneyCursor, decodeTimelineCursor, encodeJourneyCursor, encodeTimelineCursor } from './cursor.ts';
import { MAX_STORED_MICROS, microsText, microsToMillis } from './micros.ts';
import { parseListParams, parseSearchParams } from './params.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  return 'ok';
}

describe('query instants', () => {
  it('keeps digits beyond the millisecond and rounds bounds up to the microsecond', () => {
    const instant = parseInstant('2026-02-10T10:00:00.1234561Z')!;
    expect(instant).toEqual({ ms: Date.parse('2026-02-10T10:00:00.123Z'), subMs: '4561' });
    expect(ceilMicros(instant)).toBe(BigInt(Date.parse('2026-02-10T10:00:00.123Z')) * 1000n + 457n);
    expect(ceilMicros(parseInstant('2026-02-10T10:00:00.123456000Z')!)).toBe(BigInt(Date.parse('2026-02-10T10:00:00.123Z')) * 1000n + 456n);
  });

  it('compares exactly, whatever the offset or the number of digits', () => {
    const a = parseInstant('2026-02-10T10:00:00.0001Z')!;
    const b = parseInstant('2026-02-10T11:00:00.00010+01:00')!;
    const c = parseInstant('2026-02-10T10:00:00.00011Z')!;
    expect(compareInstants(a, b)).toBe(0);
    expect(compareInstants(a, c)).toBeLessThan(0);
    expect(compareInstants(c, a)).toBeGreaterThan(0);
  });

  it('refuses what is not a full instant with a time zone on a real date', () => {
    for (const text of ['2026-02-10', '2026-02-10T10:00:00', '2026-02-29T00:00:00Z', '2026-02-10T24:00:00Z', '2026-02-10T10:00:00+2:00', '10:00Z']) {
      expect(parseInstant(text), text).toBeNull();
    }
    expect(parseInstant('2024-02-29T00:00Z')).not.toBeNull();
    expect(parseInstant('2026-02-10T10:00:00 02:00')).toEqual(parseInstant('2026-02-10T10:00:00+02:00'));
  });
});

describe('limit', () => {
  it('defaults, caps and refuses', () => {
    expect(parseLimit(undefined)).toBe(25);
    expect(parseLimit('')).toBe(25);
    expect(parseLimit('1')).toBe(1);
    expect(parseLimit('0100')).toBe(100);
    expect(parseLimit('101')).toBe(100);
    for (const value of ['0', '-1', '1.0', '1e2', ' 1', 'x']) expect(code(() => parseLimit(value)), value).toBe('invalid_query');
  });
});

describe('cursors', () => {
  it('round-trip a position', () => {
    const journey = { lastEventUs: 1_770_000_000_123_456n, journeyId: 'jrn-\u{1D11E}' };
    expect(decodeJourneyCursor(encodeJourneyCursor(journey))).toEqual(journey);
    const timeline = { timestampUs: -62_135_596_800_000_000n, receivedAtUs: MAX_STORED_MICROS, eventId: 'e' };
    expect(decodeTimelineCursor(encodeTimelineCursor(timeline))).toEqual(timeline);
    expect(decodeJourneyCursor(undefined)).toBeNull();
    expect(decodeJourneyCursor('')).toBeNull();
  });

  it('refuse anything they did not write', () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const text of ['x'.repeat(3000), 'a+b', b64([1]), b64('j'), b64({ k: 'j', t: '1', id: '' }), b64({ k: 'j', t: '1', id: '\ud800' }), b64({ k: 'j', t: '1.5', id: 'a' })]) {
      expect(code(() => decodeJourneyCursor(text)), text.slice(0, 20)).toBe('invalid_cursor');
    }
  });
});

describe('micros', () => {
  it('writes exact text for PostgreSQL, before and after 1970', () => {
    expect(microsText(1_770_000_000_123_456n)).toBe('2026-02-02T02:40:00.123456Z');
    expect(microsText(-1n)).toBe('1969-12-31T23:59:59.999999Z');
    expect(microsToMillis(-1n)).toBe(-1);
    expect(microsText(MAX_STORED_MICROS + 5n)).toBe('9999-12-31T23:59:59.999999Z');
  });
});

describe('route parameters', () => {
  it('needs a value for search and normalizes it like search tokens', () => {
    expect(parseSearchParams({ q: '  0F8FAD5B-D9CB-469F-A165-70867728950E ' }, NOW).value).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(code(() => parseSearchParams({ q: '\u00a0' }, NOW))).toBe('invalid_query');
  });

  it('checks since against the clock to the microsecond', () => {
    const limit = new Date(NOW + 60_000).toISOString();
    expect(code(() => parseListParams({ since: limit }, NOW))).toBe('ok');
    expect(code(() => parseListParams({ since: limit.replace('Z', '0001Z') }, NOW))).toBe('invalid_query');
  });
});
