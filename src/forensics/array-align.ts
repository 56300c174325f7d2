// Array alignment for the read-time diff: which element of the first array became which element
// of the second. Objects carrying an id-like key are matched by that key; anything else by a
// longest common subsequence of equal elements. Matches never cross (order is kept), so a moved
// element reads as removed at its old place and added at its new one.

import { isPlainObject, stableKey } from './json-values.ts';

export type AlignStep =
  | { kind: 'pair'; from: number; to: number }
  | { kind: 'removed'; from: number }
  | { kind: 'added'; to: number };

/**
 * Cells of the longest-common-subsequence table (after trimming the common prefix and suffix)
 * computed at most: 4 M cells is about 16 MB and a few milliseconds. Larger middles (arrays are
 * at most 1,000 wide, so only two wholly different long arrays) are paired index by index.
 */
export const MAX_LCS_CELLS = 4_000_000;

/** Keys tried, in this order, as an element's identity; then any key ending in `Id`, `_id` or `ID`. */
const ID_KEYS = ['id', '_id', 'uuid', 'guid', 'key', 'sku'] as const;
const ID_SUFFIX = /(?:[a-z0-9]Id|_id|[a-z0-9]ID)$/;

/**
 * Steps in order of both arrays: every index of `before` appears once as `from`, every index of
 * `after` once as `to`, and paired indices increase together. Between two matched elements,
 * unmatched elements are paired in order when matching by value (an element edited in place
 * reads as changed), never when matching by identity (another id is another record).
 */
export function alignArrays(before: readonly unknown[], after: readonly unknown[]): AlignStep[] {
  const ids = findIdentities(before, after);
  if (ids === null) return alignByKeys(before.map(stableKey), after.map(stableKey), true).steps;
  return alignByKeys(ids.before, ids.after, false).steps;
}

/**
 * Aligns two sequences of keys (equal keys may match). `exact` is false when the middle was too
 * large for the longest common subsequence: only the common prefix and suffix were matched.
 */
export function alignByKeys(a: readonly string[], b: readonly string[], pairGaps: boolean): { steps: AlignStep[]; exact: boolean } {
  const { anchors, exact } = matchAnchors(a, b);
  const steps: AlignStep[] = [];
  let i = 0;
  let j = 0;
  for (const [from, to] of [...anchors, [a.length, b.length] as const]) {
    fillGap(steps, i, from, j, to, pairGaps);
    if (from < a.length) steps.push({ kind: 'pair', from, to });
    i = from + 1;
    j = to + 1;
  }
  return { steps, exact };
}

/** Unmatched elements between two anchors: `[i, iEnd)` of before and `[j, jEnd)` of after. */
function fillGap(steps: AlignStep[], i: number, iEnd: number, j: number, jEnd: number, pairInPlace: boolean): void {
  if (pairInPlace) {
    for (; i < iEnd && j < jEnd; i++, j++) steps.push({ kind: 'pair', from: i, to: j });
  }
  for (; i < iEnd; i++) steps.push({ kind: 'removed', from: i });
  for (; j < jEnd; j++) steps.push({ kind: 'added', to: j });
}

/** Matched index pairs, increasing: common prefix, LCS of the middle, common suffix. */
function matchAnchors(a: readonly string[], b: readonly string[]): { anchors: Array<readonly [number, number]>; exact: boolean } {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const anchors: Array<readonly [number, number]> = [];
  for (let k = 0; k < start; k++) anchors.push([k, k]);
  const middle = longestCommonSubsequence(a, start, endA, b, start, endB);
  anchors.push(...(middle ?? []));
  for (let k = 0; endA + k < a.length; k++) anchors.push([endA + k, endB + k]);
  return { anchors, exact: middle !== null };
}

function longestCommonSubsequence(
  a: readonly string[], a0: number, a1: number,
  b: readonly string[], b0: number, b1: number,
): Array<readonly [number, number]> | null {
  const n = a1 - a0;
  const m = b1 - b0;
  if (n === 0 || m === 0) return [];
  if ((n + 1) * (m + 1) > MAX_LCS_CELLS) return null;
  // table[x][y]: LCS length of a[a0+x..a1) and b[b0+y..b1), filled from the end.
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let x = n - 1; x >= 0; x--) {
    for (let y = m - 1; y >= 0; y--) {
      table[x * width + y] = a[a0 + x] === b[b0 + y]
        ? table[(x + 1) * width + y + 1]! + 1
        : Math.max(table[(x + 1) * width + y]!, table[x * width + y + 1]!);
    }
  }
  const pairs: Array<readonly [number, number]> = [];
  let x = 0;
  let y = 0;
  while (x < n && y < m) {
    if (a[a0 + x] === b[b0 + y]) {
      pairs.push([a0 + x, b0 + y]);
      x++;
      y++;
    } else if (table[(x + 1) * width + y]! >= table[x * width + y + 1]!) x++;
    else y++;
  }
  return pairs;
}

/**
 * The id-like key shared by every element of both arrays: each element an object holding it
 * with a string or number value, unique within each array. Null when there is none (or when
 * an array is empty: nothing to match then).
 */
export function findIdKey(before: readonly unknown[], after: readonly unknown[]): string | null {
  return findIdentities(before, after)?.key ?? null;
}

/** findIdKey with each element's identity under that key, computed once for the check and the alignment. */
function findIdentities(before: readonly unknown[], after: readonly unknown[]): { key: string; before: string[]; after: string[] } | null {
  if (before.length === 0 || after.length === 0) return null;
  const first = before[0];
  if (!isPlainObject(first)) return null;
  const suffixed = Object.keys(first).filter((key) => ID_SUFFIX.test(key)).sort();
  for (const key of [...ID_KEYS, ...suffixed]) {
    const ofBefore = identitiesIn(before, key);
    if (ofBefore === null) continue;
    const ofAfter = identitiesIn(after, key);
    if (ofAfter !== null) return { key, before: ofBefore, after: ofAfter };
  }
  return null;
}

/** Each element's identity under `key`, or null unless every element has a distinct one. */
function identitiesIn(elements: readonly unknown[], key: string): string[] | null {
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const element of elements) {
    if (!isPlainObject(element) || !Object.hasOwn(element, key)) return null;
    const value = element[key];
    if (typeof value !== 'string' && typeof value !== 'number') return null;
    // Type-tagged, so that the id 1 and the id "1" are different records (ids are strings or numbers).
    const id = typeof value === 'string' ? `s${value}` : `n${String(value)}`;
    if (seen.has(id)) return null;
    seen.add(id);
    ids.push(id);
  }
  return ids;
}
