// Instants of the read routes travel between Node and PostgreSQL as whole epoch microseconds.
// Both ends hold microseconds exactly (timestamptz does; a JavaScript Date does not), and the
// values leave PostgreSQL as text and enter it as ISO text, so no float ever rounds a bound or a
// cursor position (a double holds whole microseconds exactly only up to the year 2255).

import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS } from '../protocol/timestamps.ts';

/** First microsecond of 0001-01-01 UTC: nothing stored is earlier (event protocol 2.4). */
export const MIN_STORED_MICROS = BigInt(MIN_TIMESTAMP_MS) * 1000n;
/** Last microsecond of 9999-12-31 UTC: nothing stored is later. */
export const MAX_STORED_MICROS = BigInt(MAX_TIMESTAMP_MS) * 1000n + 999n;

/** SQL that reads a timestamptz column as epoch microseconds in text (exact: extract is numeric). */
export function epochMicrosSql(column: string): string {
  return `floor(extract(epoch from ${column}) * 1000000)::int8::text`;
}

/** Floor division: BigInt division truncates toward zero, and years before 1970 are negative. */
function floorDiv(value: bigint, divisor: bigint): bigint {
  const quotient = value / divisor;
  return value % divisor < 0n ? quotient - 1n : quotient;
}

/** Epoch milliseconds of a microsecond instant, truncated like every written timestamp. */
export function microsToMillis(us: bigint): number {
  return Number(floorDiv(us, 1000n));
}

/**
 * `YYYY-MM-DDThh:mm:ss.ffffffZ` for PostgreSQL (`$n::timestamptz`). Clamped to the stored range:
 * beyond it every stored value compares the same way, and Date cannot write year 10000 in a form
 * PostgreSQL reads.
 */
export function microsText(us: bigint): string {
  const clamped = us < MIN_STORED_MICROS ? MIN_STORED_MICROS : us > MAX_STORED_MICROS ? MAX_STORED_MICROS : us;
  const ms = floorDiv(clamped, 1000n);
  const subMs = clamped - ms * 1000n;
  const iso = new Date(Number(ms)).toISOString();
  return `${iso.slice(0, -1)}${subMs.toString().padStart(3, '0')}Z`;
}
