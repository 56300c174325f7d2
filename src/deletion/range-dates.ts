/**
 * Dates of `delete:range` (interface spec, Operator commands): an ISO 8601 date read as
 * midnight UTC, or a timestamp with an explicit offset (`Z` or `±hh:mm`). A timestamp without
 * an offset is refused: read in whatever zone the database session has, it would delete a
 * different range on another machine. Seconds and up to three fraction digits are optional;
 * more digits than the API's millisecond timestamps carry are refused rather than rounded.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})$/;

export class InvalidDateError extends Error {
  constructor(readonly option: string, message: string) {
    super(message);
    this.name = 'InvalidDateError';
  }
}

/** Epoch milliseconds of a UTC calendar instant, or null when a field is out of range (2025-02-30). */
function utcMillis(fields: number[]): number | null {
  const [year, month, day, hour, minute, second, millis] = fields as [number, number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getUTCDate() === day && date.getUTCMonth() === month - 1 ? date.getTime() : null;
}

function offsetMillis(offset: string): number | null {
  if (offset === 'Z') return 0;
  const hours = Number(offset.slice(1, 3));
  const minutes = Number(offset.slice(4, 6));
  if (hours > 23 || minutes > 59) return null;
  return (offset.startsWith('-') ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

/** Epoch milliseconds of a `--before`/`--after` value; throws InvalidDateError naming the option. */
export function parseRangeDate(option: string, text: string): number {
  const date = DATE.exec(text);
  if (date) {
    const ms = utcMillis([Number(date[1]), Number(date[2]), Number(date[3]), 0, 0, 0, 0]);
    if (ms === null) throw new InvalidDateError(option, `${option} ${JSON.stringify(text)} is not a calendar date`);
    return ms;
  }
  const stamp = TIMESTAMP.exec(text);
  if (!stamp) {
    const noOffset = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(text);
    throw new InvalidDateError(
      option,
      noOffset
        ? `${option} ${JSON.stringify(text)} has no offset; add Z or ±hh:mm, or give a date (YYYY-MM-DD, midnight UTC)`
        : `${option} must be a date (YYYY-MM-DD) or a timestamp with an offset (YYYY-MM-DDThh:mm[:ss[.sss]]Z or ±hh:mm)`,
    );
  }
  const fraction = (stamp[7] ?? '0').padEnd(3, '0');
  const local = utcMillis([1, 2, 3, 4, 5, 6].map((i) => Number(stamp[i] ?? '0')).concat(Number(fraction)));
  const offset = offsetMillis(stamp[8]!);
  if (local === null || offset === null) throw new InvalidDateError(option, `${option} ${JSON.stringify(text.slice(0, 64))} is not a valid timestamp`);
  return local - offset;
}

export interface DateRange {
  /** Null: the beginning of time. */
  afterMs: number | null;
  beforeMs: number;
}

/** Both options together: --after must be earlier than --before. */
export function parseDateRange(before: string, after: string | undefined): DateRange {
  const beforeMs = parseRangeDate('--before', before);
  if (after === undefined) return { afterMs: null, beforeMs };
  const afterMs = parseRangeDate('--after', after);
  if (afterMs >= beforeMs) throw new InvalidDateError('--after', '--after must be earlier than --before');
  return { afterMs, beforeMs };
}
