// The part of a journey-list q to probe a trigram index with (src/query/journeys-sql.ts). A GIN
// scan reads the posting list of every trigram of its pattern, so a trigram found in most values
// costs a read of most entries, however rare q's other trigrams are (about 100 ms at ten million
// aliases). Where a part of q free of such trigrams is, by the statistics, still rare enough to
// find few rows, that part probes the index and q itself decides on the rows found.

/** Longest q worth the search: it is cubic in q's length, and a long q has rare trigrams enough. */
const MAX_SEARCHED_LENGTH = 64;
/** A trigram in this share of the values or more is not read: its posting list is most of the index. */
export const EXPENSIVE_SHARE = 0.1;
/** The most rows a part may be estimated to find: each is fetched and tested against q. */
const MAX_ESTIMATED_ROWS = 1_000;

const WORD_CHARACTER = /[a-z0-9]/;
const ASCII = /^[\x20-\x7e]*$/;

/** How common each trigram is among one place's values (src/query/common-trigrams.ts). */
export interface TrigramStatistics {
  /** Share of values holding the trigram, for the trigrams ANALYZE found most common. */
  shares: ReadonlyMap<string, number>;
  /** The smallest share listed: a trigram not listed is at most this common. */
  floor: number;
  /** Values in the table (pg_class.reltuples). */
  rows: number;
}

/** The words of an ASCII part as pg_trgm pads them in the LIKE pattern `%part%`. */
function paddedWords(part: string): string[] {
  const lowered = part.toLowerCase();
  const words: string[] = [];
  let start = 0;
  while (start < lowered.length) {
    if (!WORD_CHARACTER.test(lowered[start]!)) {
      start++;
      continue;
    }
    let end = start;
    while (end < lowered.length && WORD_CHARACTER.test(lowered[end]!)) end++;
    // Padded where a non-word character of the part bounds the word, not where the pattern's `%` does.
    words.push(`${start > 0 ? '  ' : ''}${lowered.slice(start, end)}${end < lowered.length ? ' ' : ''}`);
    start = end;
  }
  return words;
}

/** The trigrams pg_trgm extracts from the LIKE pattern `%part%` of an ASCII part. */
export function likeTrigrams(part: string): string[] {
  const trigrams: string[] = [];
  for (const word of paddedWords(part)) for (let i = 0; i + 3 <= word.length; i++) trigrams.push(word.slice(i, i + 3));
  return trigrams;
}

/**
 * Rows a part is estimated to find: its trigrams that share no character, taken as independent.
 * Overlapping trigrams of one word go together (a value with "joh" mostly holds "ohn"), so only
 * every third counts; a trigram not listed counts as the least common listed one.
 */
export function estimatedRows(part: string, statistics: TrigramStatistics): number {
  let estimate = statistics.rows;
  for (const word of paddedWords(part)) {
    for (let i = 0; i + 3 <= word.length; i += 3) estimate *= statistics.shares.get(word.slice(i, i + 3)) ?? statistics.floor;
  }
  return estimate;
}

const share = (trigram: string, statistics: TrigramStatistics) => statistics.shares.get(trigram) ?? 0;

/**
 * The part of q (printable ASCII, whose lowering every collation does letter by letter, so that
 * it stays a substring of the lowered q) to probe the index with: none of its trigrams expensive,
 * estimated to find at most a thousand rows, the fewest estimated. Null, and q itself probes,
 * when q has no expensive trigram, when no part qualifies, or when q is long.
 */
export function rareSubstring(q: string, statistics: TrigramStatistics | null): string | null {
  if (statistics === null || q.length > MAX_SEARCHED_LENGTH) return null;
  if (likeTrigrams(q).every((trigram) => share(trigram, statistics) < EXPENSIVE_SHARE)) return null;
  let best: { part: string; rows: number } | null = null;
  for (let start = 0; start < q.length; start++) {
    for (let end = start + 3; end <= q.length; end++) {
      const part = q.slice(start, end);
      if (!ASCII.test(part)) break;
      const trigrams = likeTrigrams(part);
      if (trigrams.length === 0) continue;
      // A longer part from here holds this expensive trigram too.
      if (trigrams.some((trigram) => share(trigram, statistics) >= EXPENSIVE_SHARE)) break;
      const rows = estimatedRows(part, statistics);
      if (rows <= MAX_ESTIMATED_ROWS && (best === null || rows < best.rows || (rows === best.rows && part.length > best.part.length))) {
        best = { part, rows };
      }
    }
  }
  return best?.part ?? null;
}
