// The verdict of one replay (docs/problems.md, "Verifying a fix by replay"): does the fixed
// service's answer keep what the problem says was lost or changed?

export type Verdict = 'pending' | 'kept' | 'still_lost' | 'failed';

type Found = { found: true; value: unknown } | { found: false };

/**
 * The value at a finding's path (`a.b[0].c`, the payload diff's notation). A key may itself hold
 * a dot, so each object key that the rest of the path starts with is tried.
 */
export function valueAt(value: unknown, path: string): Found {
  if (path === '') return { found: true, value };
  if (Array.isArray(value)) {
    const match = /^\[(\d+)\]/.exec(path);
    if (match === null) return { found: false };
    const index = Number(match[1]);
    if (index >= value.length) return { found: false };
    return valueAt(value[index], stripSeparator(path.slice(match[0].length)));
  }
  if (typeof value !== 'object' || value === null) return { found: false };
  for (const key of Object.keys(value)) {
    if (!path.startsWith(key)) continue;
    const rest = path.slice(key.length);
    if (rest !== '' && !rest.startsWith('.') && !rest.startsWith('[')) continue;
    const found = valueAt((value as Record<string, unknown>)[key], stripSeparator(rest));
    if (found.found) return found;
  }
  return { found: false };
}

function stripSeparator(rest: string): string {
  return rest.startsWith('.') ? rest.slice(1) : rest;
}

/** Deep equality of JSON values, key order aside. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const left = Object.keys(a);
  const right = b as Record<string, unknown>;
  return left.length === Object.keys(right).length && left.every((key) => Object.hasOwn(right, key) && sameJson((a as Record<string, unknown>)[key], right[key]));
}

/**
 * `lost`: kept when the answer has the field. `changed`: kept when the answer's value there
 * equals the replayed input's (both without it counts as equal).
 */
export function verdictOf(kind: 'lost' | 'changed', path: string, input: unknown, answer: unknown): 'kept' | 'still_lost' {
  const after = valueAt(answer, path);
  if (kind === 'lost') return after.found ? 'kept' : 'still_lost';
  const before = valueAt(input, path);
  if (!before.found || !after.found) return before.found === after.found ? 'kept' : 'still_lost';
  return sameJson(before.value, after.value) ? 'kept' : 'still_lost';
}
