// The order the protocol sorts strings in (journey summaries: services, ties of event ids) and
// PostgreSQL's COLLATE "C" on UTF-8: by code point, which is UTF-8 byte order.

/** Compares strings by code point (= UTF-8 byte order), not by UTF-16 unit. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
