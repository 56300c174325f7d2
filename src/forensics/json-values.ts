// Small helpers over JSON values as stored (parsed jsonb: no undefined, no cycles).

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A string equal for equal JSON values whatever their key order: compact JSON with keys
 * sorted. Used to compare and to hash values; stored payloads are depth-bounded (32 levels),
 * so recursion is safe.
 */
export function stableKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableKey).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableKey(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  return a === b || stableKey(a) === stableKey(b);
}
