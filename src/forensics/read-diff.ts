// The read-time diff shown to people (journey forensics, the interface's event diff table).
// The stored payloadDiff (event-protocol section 6) stays index-by-index; this one aligns
// arrays (by an id-like key, else by a longest common subsequence) so that an insertion at the
// front does not show every element as changed, pairs renamed keys, and names data loss.

import { MAX_DIFF_CHANGES, MAX_DIFF_DEPTH } from '../protocol/limits.ts';
import { alignArrays } from './array-align.ts';
import { isPlainObject, stableKey } from './json-values.ts';

export type ReadDiffKind = 'lost' | 'renamed' | 'changed' | 'added' | 'removed';

/**
 * One difference. Paths use the payloadDiff form (`a.b[0].c`, root ""); an index is the
 * element's position in the second value, except for a `removed` element (its position in the
 * first value). `lost`: a value other than null became null (`after: null`) or disappeared (no
 * `after`). `renamed`: an object key disappeared and another key of the same object appeared
 * with an equal value; `path` is the new key, `renamedFrom` the old one. `added` has `after`,
 * `removed` has `before` (an array element, or a null value whose key disappeared), `changed`
 * has both.
 */
export interface ReadDiffRow {
  path: string;
  kind: ReadDiffKind;
  before?: unknown;
  after?: unknown;
  renamedFrom?: string;
}

export interface ReadDiff {
  /** Lost first, then renamed, changed, added, removed; walk order within a kind. */
  rows: ReadDiffRow[];
  /** True when rows past MAX_READ_DIFF_ROWS exist and were left out. */
  truncated: boolean;
}

/** Rows kept per diff, as payloadDiff keeps changes (section 6): bounds the response size. */
export const MAX_READ_DIFF_ROWS = MAX_DIFF_CHANGES;
/**
 * Deepest path described, root = 0, like payloadDiff (section 6). Two containers that still
 * differ at this depth are one `changed` row with their whole values.
 */
export const MAX_READ_DIFF_DEPTH = MAX_DIFF_DEPTH;

const KIND_ORDER: Record<ReadDiffKind, number> = { lost: 0, renamed: 1, changed: 2, added: 3, removed: 4 };

/** Diffs two JSON values (as stored: `[REDACTED]` strings compare equal to each other). */
export function readDiff(before: unknown, after: unknown): ReadDiff {
  const rows: ReadDiffRow[] = [];
  walk(before, after, '', 0, rows);
  // Stable sort keeps walk order within a kind.
  rows.sort((x, y) => KIND_ORDER[x.kind] - KIND_ORDER[y.kind]);
  const truncated = rows.length > MAX_READ_DIFF_ROWS;
  return { rows: truncated ? rows.slice(0, MAX_READ_DIFF_ROWS) : rows, truncated };
}

// The walk collects every row, then the caller sorts and cuts: the lost rows, which matter most,
// must survive the cut wherever they sit. Stored payloads are bounded (depth 32, width 1,000,
// 1 MiB at most), so the full list stays small.
function walk(before: unknown, after: unknown, path: string, depth: number, rows: ReadDiffRow[]): void {
  if (before === after) return;
  const bothArrays = Array.isArray(before) && Array.isArray(after);
  const bothObjects = isPlainObject(before) && isPlainObject(after);
  if (!bothArrays && !bothObjects) {
    // Different primitives, or different kinds of value: JSON has no other equal pair.
    rows.push(replacement(path, before, after));
    return;
  }
  if (depth >= MAX_READ_DIFF_DEPTH) {
    if (stableKey(before) !== stableKey(after)) rows.push({ path, kind: 'changed', before, after });
    return;
  }
  if (bothArrays) walkArrays(before as unknown[], after as unknown[], path, depth, rows);
  else walkObjects(before as Record<string, unknown>, after as Record<string, unknown>, path, depth, rows);
}

/** A value replaced by another at the same place: lost when the new one is null. */
function replacement(path: string, before: unknown, after: unknown): ReadDiffRow {
  if (after === null && before !== null) return { path, kind: 'lost', before, after: null };
  return { path, kind: 'changed', before, after };
}

function walkArrays(before: unknown[], after: unknown[], path: string, depth: number, rows: ReadDiffRow[]): void {
  for (const step of alignArrays(before, after)) {
    if (step.kind === 'pair') walk(before[step.from], after[step.to], `${path}[${step.to}]`, depth + 1, rows);
    else if (step.kind === 'removed') rows.push({ path: `${path}[${step.from}]`, kind: 'removed', before: before[step.from] });
    else rows.push({ path: `${path}[${step.to}]`, kind: 'added', after: after[step.to] });
  }
}

function walkObjects(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  path: string,
  depth: number,
  rows: ReadDiffRow[],
): void {
  const beforeKeys = Object.keys(before);
  let shared = 0;
  for (const key of beforeKeys) {
    if (!Object.hasOwn(after, key)) continue;
    shared++;
    // Most keys of a step's payload hold what they held: no path to build for them.
    if (before[key] !== after[key]) walk(before[key], after[key], keyPath(path, key), depth + 1, rows);
  }
  const afterKeys = Object.keys(after);
  if (shared === beforeKeys.length && shared === afterKeys.length) return;
  const gone = beforeKeys.filter((key) => !Object.hasOwn(after, key));
  const arrived = afterKeys.filter((key) => !Object.hasOwn(before, key));
  const renames = pairRenames(before, gone, after, arrived);
  for (const key of gone) {
    const newKey = renames.get(key);
    if (newKey !== undefined) {
      rows.push({ path: keyPath(path, newKey), kind: 'renamed', before: before[key], after: after[newKey], renamedFrom: keyPath(path, key) });
    } else if (before[key] === null) {
      rows.push({ path: keyPath(path, key), kind: 'removed', before: null });
    } else {
      rows.push({ path: keyPath(path, key), kind: 'lost', before: before[key] });
    }
  }
  const renamedTo = new Set(renames.values());
  for (const key of arrived) {
    if (!renamedTo.has(key)) rows.push({ path: keyPath(path, key), kind: 'added', after: after[key] });
  }
}

/**
 * Pairs a disappeared key with an appeared key of the same object holding an equal value, in
 * key order; each key pairs at most once. Null, booleans and the empty string are too common
 * to say that a key was renamed, so they never pair. Values are first sorted by a cheap class
 * that equal values share (a primitive's own key, an array's length, an object's key count):
 * the full key of an object or array is computed only when the other side has one like it.
 */
export function pairRenames(
  before: Record<string, unknown>,
  gone: readonly string[],
  after: Record<string, unknown>,
  arrived: readonly string[],
): Map<string, string> {
  const pairs = new Map<string, string>();
  if (gone.length === 0 || arrived.length === 0) return pairs;
  // By class, each in key order, with its full key once computed.
  const waiting = new Map<string, Array<{ key: string; full: string | null }>>();
  for (const key of arrived) {
    if (!isPairable(after[key])) continue;
    const valueClass = classOf(after[key]);
    const list = waiting.get(valueClass);
    if (list === undefined) waiting.set(valueClass, [{ key, full: null }]);
    else list.push({ key, full: null });
  }
  for (const key of gone) {
    if (!isPairable(before[key])) continue;
    const list = waiting.get(classOf(before[key]));
    if (list === undefined || list.length === 0) continue;
    const full = stableKey(before[key]);
    const index = list.findIndex((candidate) => (candidate.full ??= stableKey(after[candidate.key])) === full);
    if (index === -1) continue;
    pairs.set(key, list[index]!.key);
    list.splice(index, 1);
  }
  return pairs;
}

/** Equal for equal values (equal stable keys); cheap for objects and arrays. */
function classOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length}`;
  if (isPlainObject(value)) return `{${Object.keys(value).length}`;
  return stableKey(value);
}

function isPairable(value: unknown): boolean {
  return value !== null && value !== '' && typeof value !== 'boolean';
}

export function keyPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}
