// The part of a journey-list q to probe a trigram index with (src/query/journeys-sql.ts). A GIN
// scan reads the posting list of every trigram of its pattern, so a trigram found in nearly
// every value costs a read of nearly every entry, however rare the other trigrams of q are. The
// longest part of q whose trigrams are all uncommon finds a superset of q's matches through short
// posting lists; q itself then decides on the rows found.

/** Longest q worth the search: the search is cubic in q's length, and a long q has rare trigrams enough. */
const MAX_SEARCHED_LENGTH = 64;

const WORD_CHARACTER = /[a-z0-9]/;
const ASCII = /^[\x20-\x7e]*$/;

/**
 * The trigrams pg_trgm extracts from the LIKE pattern `%part%` of an ASCII part: each run of
 * letters and digits, padded as a word ("  " before, " " after) where a non-word character bounds
 * it inside part, unpadded where the pattern's `%` does.
 */
export function likeTrigrams(part: string): string[] {
  const lowered = part.toLowerCase();
  const trigrams: string[] = [];
  let start = 0;
  while (start < lowered.length) {
    if (!WORD_CHARACTER.test(lowered[start]!)) {
      start++;
      continue;
    }
    let end = start;
    while (end < lowered.length && WORD_CHARACTER.test(lowered[end]!)) end++;
    const word = `${start > 0 ? '  ' : ''}${lowered.slice(start, end)}${end < lowered.length ? ' ' : ''}`;
    for (let i = 0; i + 3 <= word.length; i++) trigrams.push(word.slice(i, i + 3));
    start = end;
  }
  return trigrams;
}

/**
 * The longest substring of q, in printable ASCII (whose lowering every collation does letter by
 * letter, so that the lowered part stays a substring of the lowered q), holding at least one
 * trigram and none of `common`; null when there is none, or when it is q itself.
 */
export function rareSubstring(q: string, common: ReadonlySet<string>): string | null {
  if (common.size === 0 || q.length > MAX_SEARCHED_LENGTH) return null;
  if (likeTrigrams(q).every((trigram) => !common.has(trigram))) return null;
  for (let length = q.length; length >= 3; length--) {
    for (let start = 0; start + length <= q.length; start++) {
      const part = q.slice(start, start + length);
      if (!ASCII.test(part)) continue;
      const trigrams = likeTrigrams(part);
      if (trigrams.length > 0 && trigrams.every((trigram) => !common.has(trigram))) return part === q ? null : part;
    }
  }
  return null;
}
