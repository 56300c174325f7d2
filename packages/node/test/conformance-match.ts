// Comparison of event protocol 11.4 for SDK cases: `$matches`, `$absent`, the first level a
// subset, deeper levels exact. Returns the mismatches as readable lines (empty when it matches).

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAbsentMatcher(value: unknown): boolean {
  return isObject(value) && Object.keys(value).length === 1 && value.$absent === true;
}

function exact(actual: unknown, expected: unknown, path: string, out: string[]): void {
  if (isObject(expected) && Object.keys(expected).length === 1 && typeof expected.$matches === 'string') {
    if (typeof actual !== 'string' || !new RegExp(expected.$matches).test(actual)) out.push(`${path}: ${preview(actual)} does not match /${expected.$matches}/`);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      out.push(`${path}: expected an array of ${expected.length}, got ${preview(actual)}`);
      return;
    }
    expected.forEach((item, index) => exact(actual[index], item, `${path}[${index}]`, out));
    return;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) {
      out.push(`${path}: expected an object, got ${preview(actual)}`);
      return;
    }
    const wanted = Object.keys(expected).filter((key) => !isAbsentMatcher(expected[key]));
    const extra = Object.keys(actual).filter((key) => !wanted.includes(key));
    if (extra.length > 0) out.push(`${path}: unexpected keys ${extra.map(preview).join(', ')}`);
    for (const key of wanted) {
      if (!Object.hasOwn(actual, key)) out.push(`${path}.${key}: missing`);
      else exact(actual[key], expected[key], `${path}.${key}`, out);
    }
    return;
  }
  if (!Object.is(actual, expected)) out.push(`${path}: expected ${preview(expected)}, got ${preview(actual)}`);
}

/** 11.4 first level: listed keys present (or absent when `$absent`) and matching exactly below. */
export function subsetMismatches(actual: unknown, expected: Record<string, unknown>, path: string): string[] {
  const out: string[] = [];
  if (!isObject(actual)) return [`${path}: expected an object, got ${preview(actual)}`];
  for (const [key, value] of Object.entries(expected)) {
    if (isAbsentMatcher(value)) {
      if (Object.hasOwn(actual, key)) out.push(`${path}.${key}: should be absent`);
    } else if (!Object.hasOwn(actual, key)) out.push(`${path}.${key}: missing`);
    else exact(actual[key], value, `${path}.${key}`, out);
  }
  return out;
}

export function exactMismatches(actual: unknown, expected: unknown, path: string): string[] {
  const out: string[] = [];
  exact(actual, expected, path, out);
  return out;
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
