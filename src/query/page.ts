// The keyset page every list answer shares (interface spec, Pagination): rows are read with
// one more than the page size, and the extra row only says that another page follows.

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The first `limit` rows as items; a cursor at the last shown row when more rows were read. */
export function keysetPage<R, T>(rows: R[], limit: number, toItem: (row: R) => T, cursorAt: (last: R) => string): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { items: shown.map(toItem), nextCursor: rows.length > limit && last !== undefined ? cursorAt(last) : null };
}
