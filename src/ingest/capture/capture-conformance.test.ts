// Runs the stored-shape expectations of the wire conformance cases (event protocol 11) through
// applyCapture alone: for every sent event whose expected `stored.event` lists a captured field,
// the listed fields must come out exactly (11.4: listed keys only at the first level, exact below).
//
// Every builder of 11.3 ($string, $array, $nest, $concat, $literal) is simple to expand here, so
// no case is skipped for its builders. Results without `stored.event` payload fields (refusals,
// duplicates, journey-only expectations) are not capture's concern and are not compared.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyCapture, isCaptureMode } from './capture.ts';
import type { CapturableEvent, CaptureSettings } from './capture.ts';
import { setOwn } from '../../protocol/own-keys.ts';

const WIRE_DIR = new URL('../../../../shared/conformance/wire/', import.meta.url);
const RUN = 'r7q2k9';
const CAPTURED_FIELDS = [
  'inputPayload',
  'outputPayload',
  'hasInput',
  'hasOutput',
  'error',
  'customMetadata',
  'runtimeMetadata',
  'deploymentMetadata',
] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Replaces `{{run}}` in strings and keys; keeps `__proto__` an own key. */
function replaceRun(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('{{run}}', RUN);
  if (Array.isArray(value)) return value.map(replaceRun);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key.replaceAll('{{run}}', RUN), replaceRun(value[key]));
  return out;
}

const MATCHERS = new Set(['$matches', '$absent']);

/** Expands the builders of 11.3; matchers are left for the comparison. */
function expand(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('{{run}}', RUN);
  if (Array.isArray(value)) return value.map(expand);
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  const only = keys[0];
  if (keys.length === 1 && only !== undefined && only.startsWith('$') && !MATCHERS.has(only)) {
    const arg = value[only] as Record<string, unknown>;
    switch (only) {
      case '$string':
        return String(arg.char).repeat(Number(arg.count));
      case '$array':
        return Array.from({ length: Number(arg.count) }, () => expand(arg.value));
      case '$nest': {
        let leaf = expand(arg.leaf);
        for (let i = 0; i < Number(arg.depth); i += 1) leaf = { n: leaf };
        return leaf;
      }
      case '$concat':
        return (value[only] as unknown[]).map((piece) => String(expand(piece))).join('');
      case '$literal':
        return replaceRun(value[only]);
      default:
        throw new Error(`unknown builder ${only}`);
    }
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) setOwn(out, key.replaceAll('{{run}}', RUN), expand(value[key]));
  return out;
}

/** Compares `actual` with `expected` exactly (11.4, below the first level); returns mismatches. */
function compare(expected: unknown, actual: unknown, path: string, problems: string[]): void {
  if (isObject(expected) && Object.hasOwn(expected, '$matches') && Object.keys(expected).length === 1) {
    const ok = typeof actual === 'string' && new RegExp(String(expected.$matches)).test(actual);
    if (!ok) problems.push(`${path}: ${JSON.stringify(actual)} does not match ${String(expected.$matches)}`);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      problems.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
      return;
    }
    expected.forEach((item, i) => compare(item, actual[i], `${path}[${i}]`, problems));
    return;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) {
      problems.push(`${path}: expected an object, got ${JSON.stringify(actual)}`);
      return;
    }
    const listed = new Set<string>();
    for (const key of Object.keys(expected)) {
      const want = expected[key];
      listed.add(key);
      if (isObject(want) && want.$absent === true) {
        if (Object.hasOwn(actual, key)) problems.push(`${path}.${key}: expected absent`);
      } else if (!Object.hasOwn(actual, key)) {
        problems.push(`${path}.${key}: missing`);
      } else {
        compare(want, actual[key], `${path}.${key}`, problems);
      }
    }
    for (const key of Object.keys(actual)) {
      if (!listed.has(key)) problems.push(`${path}.${key}: unexpected key`);
    }
    return;
  }
  if (!Object.is(expected, actual) && !(expected === 0 && actual === 0)) {
    problems.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

interface CaptureCheck {
  readonly file: string;
  readonly index: number;
  readonly settings: CaptureSettings;
  readonly allowFullPayload: boolean;
  readonly event: CapturableEvent;
  readonly expected: Record<string, unknown>;
}

/** The parts of an expanded case file read here (11.2). */
interface CaseFile {
  readonly setup?: { readonly environment?: Record<string, unknown> };
  readonly send?: { readonly events?: unknown };
  readonly expect?: { readonly results?: unknown[] };
}

function settingsOf(file: string, environment: Record<string, unknown>): CaptureSettings {
  const mode = environment.captureMode ?? 'redacted-payload';
  if (!isCaptureMode(mode)) throw new Error(`${file}: unknown capture mode ${String(mode)}`);
  return {
    captureMode: mode,
    redactionPaths: (environment.redactionPaths as string[] | undefined) ?? [],
    captureAllowlist: (environment.captureAllowlist as string[] | undefined) ?? [],
  };
}

function loadChecks(): CaptureCheck[] {
  const checks: CaptureCheck[] = [];
  for (const file of readdirSync(WIRE_DIR).filter((name) => name.endsWith('.json')).sort()) {
    // JSON.parse keeps `__proto__` as an own key, as the server's parser does.
    const testCase = expand(JSON.parse(readFileSync(new URL(file, WIRE_DIR), 'utf8'))) as CaseFile;
    const envelopes = testCase.send?.events;
    if (!Array.isArray(envelopes)) continue; // e.g. events-not-an-array: a request refusal
    const environment = testCase.setup?.environment ?? {};
    const settings = settingsOf(file, environment);
    (testCase.expect?.results ?? []).forEach((result, index) => {
      const stored = isObject(result) && isObject(result.stored) ? result.stored.event : undefined;
      if (!isObject(stored)) return;
      const expected: Record<string, unknown> = {};
      for (const field of CAPTURED_FIELDS) {
        if (Object.hasOwn(stored, field)) setOwn(expected, field, stored[field]);
      }
      if (Object.keys(expected).length === 0) return;
      const envelope = envelopes[index] as { event: CapturableEvent };
      checks.push({
        file,
        index,
        settings,
        allowFullPayload: environment.allowFullPayload === true,
        event: envelope.event,
        expected,
      });
    });
  }
  return checks;
}

const checks = loadChecks();

describe('wire conformance cases through applyCapture', () => {
  it('finds the capture and redaction cases', () => {
    const files = new Set(checks.map((check) => check.file.replace(/\.json$/, '')));
    for (const name of [
      'metadata-only-capture',
      'secret-name-spellings',
      'secrets-at-depth',
      'header-block-in-string',
      'header-name-value-objects',
      'header-pairs',
      'raw-headers-http1',
      'raw-headers-http2',
      'truncated-header-line-masked',
      'error-message-masked',
      'error-stack-dropped',
      'error-stack-kept-under-full-capture',
      'proto-key',
      'reference-journey',
      'runtime-sdk',
    ]) {
      expect(files.has(name), name).toBe(true);
    }
  });

  it('the comparison itself reports differences (11.4)', () => {
    const problems: string[] = [];
    compare({ a: 'x', b: { $absent: true } }, { a: 'y', b: null, c: 1 }, 'v', problems);
    compare({ $matches: '^a' }, 'ba', 'm', problems);
    compare([1], [1, 2], 'l', problems);
    expect(problems).toHaveLength(5);
  });

  it.each(checks.map((check) => [`${check.file} #${check.index}`, check] as const))('%s', (_name, check) => {
    const result = applyCapture(check.event, check.settings, check.allowFullPayload);
    const problems: string[] = [];
    for (const field of Object.keys(check.expected)) {
      compare(check.expected[field], (result as unknown as Record<string, unknown>)[field], field, problems);
    }
    expect(problems).toEqual([]);
  });
});
