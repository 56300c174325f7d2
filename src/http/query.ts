import { parseTimestamp } from '../protocol/timestamps.ts';
import { AppError, errors } from './errors.ts';

/** True when every %-escape in the text is well formed and decodes to UTF-8. */
export function isWellEncoded(text: string): boolean {
  try {
    decodeURIComponent(text.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
}

export function rawQueryString(rawUrl: string): string {
  const at = rawUrl.indexOf('?');
  return at === -1 ? '' : rawUrl.slice(at + 1);
}

export function assertWellEncodedUrl(rawUrl: string): void {
  if (!isWellEncoded(rawUrl)) {
    throw new AppError('bad_url', 'The URL holds malformed percent-encoding.');
  }
}

export type QueryValues<K extends string> = Partial<Record<K, string>>;

/**
 * The one query-string reader of every route: an unknown or repeated name, or a NUL in a value,
 * is refused (a cursor gets invalid_cursor), so no route can silently ignore a parameter.
 */
export function parseQuery<K extends string>(rawUrl: string, allowed: readonly K[]): QueryValues<K> {
  const params = new URLSearchParams(rawQueryString(rawUrl));
  const seen = new Map<string, string>();
  for (const [name, value] of params) {
    if (!(allowed as readonly string[]).includes(name)) {
      throw errors.invalidQuery(name, `Unknown query parameter ${JSON.stringify(name.slice(0, 64))}.`);
    }
    if (seen.has(name)) {
      if (name === 'cursor') throw errors.invalidCursor('The cursor is given more than once.');
      throw errors.invalidQuery(name, `The parameter ${name} is given more than once.`);
    }
    if (value.includes('\u0000')) {
      if (name === 'cursor') throw errors.invalidCursor('The cursor holds a NUL character.');
      throw errors.invalidQuery(name, `The parameter ${name} holds a NUL character.`);
    }
    seen.set(name, value);
  }
  return Object.fromEntries(seen) as QueryValues<K>;
}

/** Page size of every list route when `limit` is omitted or empty (interface spec, section 8). */
export const DEFAULT_PAGE_SIZE = 25;
/** Largest page of every list route; a larger `limit` is read as this (section 8). */
export const MAX_PAGE_SIZE = 100;

/**
 * `limit`: omitted or empty is the default, a whole number above the maximum is read as the
 * maximum. Only ASCII digits count as a whole number: `+5`, `5.0`, `1e2` or ` 5` are refused
 * rather than guessed at.
 */
export function parseLimit(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PAGE_SIZE;
  if (!/^[0-9]+$/.test(value)) throw errors.invalidQuery('limit', 'limit must be a whole number of at least 1.');
  const limit = Number(value);
  if (limit < 1) throw errors.invalidQuery('limit', 'limit must be a whole number of at least 1.');
  return Math.min(limit, MAX_PAGE_SIZE);
}

/**
 * An instant read from a query string, kept exactly: the truncated millisecond and the fraction
 * digits beyond it, so `until` can be compared with `since` and bounds can be rounded the right
 * way without losing the digits a client sent.
 */
export interface QueryInstant {
  /** Epoch milliseconds, truncated. */
  ms: number;
  /** Fraction digits after the third, trailing zeros dropped; '' when none. */
  subMs: string;
}

/**
 * The event-protocol timestamp form (2.4: a real calendar date, a time and `Z` or `±hh:mm`).
 * An unencoded `+` in a query string arrives as a space, so a space in the offset's place is
 * read as `+`: the text cannot mean anything else.
 */
export function parseInstant(text: string): QueryInstant | null {
  const normalized = text.replace(/(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:\d{2})$/, '$1+$2');
  const ms = parseTimestamp(normalized);
  if (ms === null) return null;
  const fraction = /\.(\d+)/.exec(normalized)?.[1] ?? '';
  return { ms, subMs: fraction.slice(3).replace(/0+$/, '') };
}

/** Negative, zero or positive as a is before, equal to or after b. */
export function compareInstants(a: QueryInstant, b: QueryInstant): number {
  if (a.ms !== b.ms) return a.ms < b.ms ? -1 : 1;
  const width = Math.max(a.subMs.length, b.subMs.length);
  const left = a.subMs.padEnd(width, '0');
  const right = b.subMs.padEnd(width, '0');
  return left === right ? 0 : left < right ? -1 : 1;
}

/**
 * The first whole microsecond at or after the instant (epoch µs). Stored instants are whole
 * microseconds, so `v >= since` and `v < until` hold exactly when they hold against this.
 */
export function ceilMicros(instant: QueryInstant): bigint {
  const micros = BigInt(instant.ms) * 1000n + BigInt(instant.subMs.slice(0, 3).padEnd(3, '0'));
  return /[1-9]/.test(instant.subMs.slice(3)) ? micros + 1n : micros;
}

/**
 * `since` / `until` of the read routes (interface spec, section 4): omitted or empty is no
 * bound; anything else must be a full instant with a time zone on a real calendar date.
 */
export function parseInstantParam(name: string, value: string | undefined): QueryInstant | null {
  if (value === undefined || value === '') return null;
  const instant = parseInstant(value);
  if (instant === null) {
    throw errors.invalidQuery(name, `${name} must be a date and time with a time zone, such as 2026-01-31T09:30:00Z.`);
  }
  return instant;
}
