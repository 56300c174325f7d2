// payloadDiff (event-protocol section 6): where the data changed between an event's stored
// input and output. Also used to compare a replay's response with the recorded output, whose
// depth no ingestion limit bounds, hence the depth cap here.

import { MAX_DIFF_CHANGES, MAX_DIFF_DEPTH } from './limits.ts';

export type PayloadChangeKind = 'added' | 'removed' | 'changed';

/** `added` has `after`, `removed` has `before`, `changed` both; each the whole value there. */
export interface PayloadChange {
  path: string;
  kind: PayloadChangeKind;
  before?: unknown;
  after?: unknown;
}

export interface PayloadDiff {
  changes: PayloadChange[];
  /** True only when something was left out: a change past the 500th, or a difference deeper than 32. */
  truncated: boolean;
}

type Obj = Record<string, unknown>;

/**
 * Walk input and output together. Objects: input's keys then output-only keys; arrays index
 * by index; any other difference is one `changed`. Paths: `a.b[0].c`, root "".
 * A change path is at most 32 levels deep (root = 0): two containers of the same kind that
 * differ at that depth are not descended into, and mark the diff truncated.
 */
export function computePayloadDiff(input: unknown, output: unknown): PayloadDiff {
  const state: DiffState = { changes: [], truncated: false };
  walk(input, output, '', 0, state);
  return { changes: state.changes, truncated: state.truncated };
}

interface DiffState {
  changes: PayloadChange[];
  truncated: boolean;
}

/** Adds a change unless the cap is reached; then marks truncation, which stops the walk. */
function record(state: DiffState, change: PayloadChange): void {
  if (state.changes.length >= MAX_DIFF_CHANGES) state.truncated = true;
  else state.changes.push(change);
}

function walk(before: unknown, after: unknown, path: string, depth: number, state: DiffState): void {
  if (state.truncated) return;
  if (before === after) return;
  const bothArrays = Array.isArray(before) && Array.isArray(after);
  const bothObjects = isObject(before) && isObject(after);
  if (!bothArrays && !bothObjects) {
    record(state, { path, kind: 'changed', before, after });
    return;
  }
  if (depth >= MAX_DIFF_DEPTH) {
    // Members would sit deeper than the cap: compared, never described.
    if (!jsonEqual(before, after)) state.truncated = true;
    return;
  }
  if (bothArrays) walkArrays(before as unknown[], after as unknown[], path, depth, state);
  else walkObjects(before as Obj, after as Obj, path, depth, state);
}

function walkArrays(before: unknown[], after: unknown[], path: string, depth: number, state: DiffState): void {
  const shared = Math.min(before.length, after.length);
  for (let i = 0; i < shared && !state.truncated; i++) {
    walk(before[i], after[i], `${path}[${i}]`, depth + 1, state);
  }
  for (let i = shared; i < before.length && !state.truncated; i++) {
    record(state, { path: `${path}[${i}]`, kind: 'removed', before: before[i] });
  }
  for (let i = shared; i < after.length && !state.truncated; i++) {
    record(state, { path: `${path}[${i}]`, kind: 'added', after: after[i] });
  }
}

function walkObjects(before: Obj, after: Obj, path: string, depth: number, state: DiffState): void {
  // Union order: input's keys (removed or walked), then output-only keys (added).
  for (const key of Object.keys(before)) {
    if (state.truncated) return;
    const childPath = keyPath(path, key);
    if (Object.hasOwn(after, key)) walk(before[key], after[key], childPath, depth + 1, state);
    else record(state, { path: childPath, kind: 'removed', before: before[key] });
  }
  for (const key of Object.keys(after)) {
    if (state.truncated) return;
    if (!Object.hasOwn(before, key)) record(state, { path: keyPath(path, key), kind: 'added', after: after[key] });
  }
}

function keyPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep equality of JSON values, key order aside. Iterative: a replay response is not
 * depth-limited, and a deeply nested one must not overflow the stack.
 */
function jsonEqual(a: unknown, b: unknown): boolean {
  const pending: Array<[unknown, unknown]> = [[a, b]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push([x[i], y[i]]);
    } else if (isObject(x) && isObject(y)) {
      const keys = Object.keys(x);
      if (keys.length !== Object.keys(y).length) return false;
      for (const key of keys) {
        if (!Object.hasOwn(y, key)) return false;
        pending.push([x[key], y[key]]);
      }
    } else {
      return false;
    }
  }
  return true;
}
