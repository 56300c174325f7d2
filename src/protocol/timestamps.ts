// Protocol timestamps (event-protocol 2.4) and the one written timestamp form of every API
// response and CLI line (`YYYY-MM-DDThh:mm:ss.sssZ`, interface-spec section 1).
//
// Parsed by hand rather than with Date.parse: Date.parse assumes local time or UTC when the
// offset is missing (the protocol refuses that), rolls 2026-02-30 over to March, rounds
// nothing but also accepts many other forms, and maps years 0–99 onto 1900–1999.

import { MAX_TIMESTAMP_YEAR, MIN_TIMESTAMP_YEAR } from './limits.ts';

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

// `YYYY-MM-DDThh:mm[:ss[.f…]]` then `Z` or `±hh:mm`; upper-case T and Z; ASCII digits only
// (no `u` flag, so \d is [0-9]). A fraction needs seconds.
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** First instant of 0001-01-01 UTC, epoch milliseconds. */
export const MIN_TIMESTAMP_MS = daysFromCivil(MIN_TIMESTAMP_YEAR, 1, 1) * MS_PER_DAY;
/** Last representable millisecond of 9999-12-31 UTC, epoch milliseconds. */
export const MAX_TIMESTAMP_MS = daysFromCivil(MAX_TIMESTAMP_YEAR + 1, 1, 1) * MS_PER_DAY - 1;

/**
 * Epoch milliseconds of a protocol timestamp, truncated (never rounded) to the millisecond,
 * or null when the text is not a valid timestamp or its UTC year is outside 0001–9999.
 */
export function parseTimestamp(text: string): number | null {
  const m = TIMESTAMP.exec(text);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  // Truncate: only the first three fraction digits count (…02.1239999 → …02.123).
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (m[8] !== undefined) {
    const offsetHour = Number(m[9]);
    const offsetMinute = Number(m[10]);
    // RFC 3339 bounds; real offsets stay within ±14:00.
    if (offsetHour > 23 || offsetMinute > 59) return null;
    offsetMinutes = (offsetHour * 60 + offsetMinute) * (m[8] === '-' ? -1 : 1);
  }
  // Offsets are whole minutes, so truncating the local fraction truncates the instant too.
  const ms =
    daysFromCivil(year, month, day) * MS_PER_DAY +
    ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1_000 +
    millis;
  // The local year may be 0000 or 9999 as long as the instant lands in 0001–9999 UTC (2.4).
  if (ms < MIN_TIMESTAMP_MS || ms > MAX_TIMESTAMP_MS) return null;
  return ms;
}

/**
 * `YYYY-MM-DDThh:mm:ss.sssZ` for epoch milliseconds in 0001–9999 UTC. A fractional input (a
 * microsecond clock divided by 1,000) is floored, so it is shown truncated like 2.4 asks.
 * Throws RangeError outside that range: every stored timestamp was checked on the way in.
 */
export function formatTimestamp(ms: number): string {
  const whole = Math.floor(ms);
  if (!Number.isFinite(whole) || whole < MIN_TIMESTAMP_MS || whole > MAX_TIMESTAMP_MS) {
    throw new RangeError(`Timestamp out of range 0001–9999: ${ms}`);
  }
  // Within 0001–9999 toISOString always writes a four-digit year and three fraction digits.
  return new Date(whole).toISOString();
}

/** Proleptic Gregorian leap year. */
function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil), exact
 * for every year, unlike Date.UTC which maps years 0–99 onto 1900–1999.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** formatTimestamp of a database timestamp, null when there is none. */
export function formatNullableTimestamp(value: Date | null | undefined): string | null {
  return value ? formatTimestamp(value.getTime()) : null;
}
