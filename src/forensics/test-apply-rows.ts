// Test support: rebuilds the second value from the first and its read-diff rows, following
// the path rules of ReadDiffRow. The property tests use it to show that the rows say everything.

import { isPlainObject } from './json-values.ts';
import type { ReadDiffRow } from './read-diff.ts';

type Segment = string | number;
interface Located {
  segments: Segment[];
  row: ReadDiffRow;
}

export function parsePath(path: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    segments.push(part.startsWith('[') ? Number(part.slice(1, -1)) : part);
  }
  return segments;
}

export function applyRows(before: unknown, rows: readonly ReadDiffRow[]): unknown {
  const located = rows.map((row) => ({ segments: parsePath(row.path), row }));
  return rebuild(before, located, '');
}

function rebuild(before: unknown, rows: Located[], path: string): unknown {
  const here = rows.find((entry) => entry.segments.length === 0);
  if (here !== undefined) return here.row.after;
  if (rows.length === 0) return before;
  if (Array.isArray(before)) return rebuildArray(before, rows, path);
  if (isPlainObject(before)) return rebuildObject(before, rows, path);
  throw new Error(`rows below a primitive at "${path}"`);
}

function rebuildArray(before: unknown[], rows: Located[], path: string): unknown[] {
  const removed = new Set<number>();
  const added = new Map<number, unknown>();
  for (const { segments, row } of rows) {
    if (segments.length !== 1) continue;
    if (row.kind === 'removed') removed.add(segments[0] as number);
    if (row.kind === 'added') added.set(segments[0] as number, row.after);
  }
  const kept = before.map((_, index) => index).filter((index) => !removed.has(index));
  const result: unknown[] = [];
  for (let to = 0, next = 0; to < kept.length + added.size; to++) {
    if (added.has(to)) {
      result.push(added.get(to));
      continue;
    }
    const below = under(rows, to).filter((entry) => !(entry.segments.length === 0 && entry.row.kind === 'removed'));
    result.push(rebuild(before[kept[next++]!], below, `${path}[${to}]`));
  }
  return result;
}

function rebuildObject(before: Record<string, unknown>, rows: Located[], path: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const full = (key: string): string => (path === '' ? key : `${path}.${key}`);
  for (const key of Object.keys(before)) {
    const gone = rows.some(({ segments, row }) =>
      (segments.length === 1 && segments[0] === key && (row.kind === 'removed' || (row.kind === 'lost' && !('after' in row)))) ||
      (row.kind === 'renamed' && row.renamedFrom === full(key)));
    if (!gone) result[key] = rebuild(before[key], under(rows, key), full(key));
  }
  for (const { segments, row } of rows) {
    if (segments.length === 1 && (row.kind === 'added' || row.kind === 'renamed')) result[segments[0] as string] = row.after;
  }
  return result;
}

function under(rows: Located[], segment: Segment): Located[] {
  return rows
    .filter((entry) => entry.segments[0] === segment)
    .map((entry) => ({ segments: entry.segments.slice(1), row: entry.row }));
}
