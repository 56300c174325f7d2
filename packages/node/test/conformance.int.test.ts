import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaseExpansionError, expandValue, findUnknownCaseKeys, newRunToken } from '../../../src/ingest/conformance-expand.ts';
import { createRecorder } from '../src/recorder.ts';
import { fakeFetch } from '../src/test-fetch.ts';
import type { Diagnostic, RecordFields } from '../src/types.ts';
import type { Journey } from '../src/journey.ts';
import { sdkConformanceDir } from './conformance-dir.ts';
import { exactMismatches, subsetMismatches } from './conformance-match.ts';
import { type LiveServer, startLiveServer } from './server.ts';

/**
 * The SDK conformance runner of event protocol 11.5: each case drives the recorder against a
 * stub endpoint, compares the captured events and diagnostics, then sends those bytes through the
 * real server's dry run over HTTP and compares the verdicts.
 */
const DIR = sdkConformanceDir();
// The case files the contract ships; one going missing is a contract change, so a failure.
const EXPECTED_FILES = [
  'error-masked-and-bounded', 'event-over-budget', 'generated-ids', 'hundred-and-one-events', 'identify',
  'identify-displayable', 'journey-label-blank', 'journey-label-cut', 'long-string-truncated', 'overlong-keys',
  'retried-attempt', 'truncated-then-omitted', 'unredacted-secret-name',
];
const NODE_LANGUAGES = ['*', 'node', 'javascript', 'typescript'];
const WRAPPERS = ['receive', 'transform', 'validate', 'persist', 'publish', 'consume', 'deliver'] as const;

interface SdkCall { call: string; name?: string; args?: Record<string, any>; repeat?: number }
interface SdkCase {
  id: string;
  languages: string[];
  calls: SdkCall[];
  recorder?: Record<string, unknown>;
  expect: { wire?: Record<string, unknown>; diagnostics?: unknown[]; results?: Array<Record<string, any>> };
}

/** Host tags (11.3) as Node values. */
function hostTag(tag: string, argument: unknown, expand: (value: unknown) => unknown): unknown {
  const value = expand(argument) as any;
  switch (tag) {
    case '$error':
      return Object.assign(new Error(String(value.message)), { name: String(value.name ?? 'Error') });
    case '$date':
      return new Date(value);
    case '$bigint':
      return BigInt(value);
    case '$undefined':
      return undefined;
    case '$map':
      return new Map(value);
    case '$set':
      return new Set(value);
    case '$buffer':
      return Buffer.from(value);
  }
  throw new CaseExpansionError(`${tag} is not supported by this runner`);
}

function runCall(journey: Journey, call: SdkCall): void {
  const args = call.args ?? {};
  if (call.call === 'record') journey.record(args as RecordFields);
  else if (call.call === 'identify') journey.identify(args.aliases, args.options);
  else if (call.call === 'fail') journey.fail(call.name ?? 'fail', args.error, args.options);
  else if (call.call === 'finish') journey.finish(call.name, args.options);
  else if (call.call === 'label') journey.label(args.text);
  else if ((WRAPPERS as readonly string[]).includes(call.call)) {
    const wrapper = journey[call.call as (typeof WRAPPERS)[number]].bind(journey);
    wrapper(call.name ?? call.call, args.input, () => args.output, args.options);
  } else throw new Error(`unknown call ${call.call}`);
}

let server: LiveServer;
let apiKey: string;

beforeAll(async () => {
  server = await startLiveServer();
  apiKey = await server.project('conformance');
});
afterAll(async () => {
  await server?.close();
});

const files = readdirSync(DIR).filter((file) => file.endsWith('.json')).sort();

describe('SDK conformance cases (event protocol 11)', () => {
  it('every shipped case file is present', () => {
    const stems = files.map((file) => file.slice(0, -'.json'.length));
    expect(EXPECTED_FILES.filter((stem) => !stems.includes(stem))).toEqual([]);
  });

  it.each(files)('%s', async (file) => {
    const document = JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as SdkCase;
    expect(findUnknownCaseKeys(document)).toEqual([]);
    expect(document.id).toBe(`sdk/${file.slice(0, -5)}`);
    if (!document.languages.some((language) => NODE_LANGUAGES.includes(language))) return;
    const run = newRunToken();
    const calls = expandValue(document.calls, { run, hostTag }) as SdkCall[];
    const expected = expandValue(document.expect, { run, hostTag }) as SdkCase['expect'];

    const stub = fakeFetch();
    const diagnostics: Diagnostic[] = [];
    const recorder = createRecorder({
      endpoint: 'http://stub.invalid',
      apiKey: 'stub',
      serviceName: 'conformance',
      environment: 'conformance',
      openTelemetry: null,
      fetch: stub.fetch,
      onDiagnostic: (diagnostic) => diagnostics.push(diagnostic),
      ...(document.recorder ?? {}),
    });
    const journey = recorder.startJourney({ entity: { type: 'order', id: `ord_${run}` } });
    for (const call of calls) for (let i = 0; i < (call.repeat ?? 1); i++) runCall(journey, call);
    expect(await recorder.shutdown({ timeoutMs: 5_000 })).toBe(true);
    const events = stub.events();

    if (expected.wire) {
      for (const event of events) expect(subsetMismatches(event, expected.wire, 'wire')).toEqual([]);
    }
    if (expected.diagnostics) {
      const seen = diagnostics.map((d) => ({ kind: d.kind, detail: d.detail }));
      expect(exactMismatches(seen, expected.diagnostics, 'diagnostics')).toEqual([]);
    }
    // Batches stay within the server's 100 (the stub saw them as the server would).
    expect(stub.batches.every((batch) => batch.length <= 100)).toBe(true);

    const results: Array<Record<string, any>> = [];
    for (const batch of stub.batches) {
      const response = await fetch(`${server.url}/v1/events/batch?dryRun=true`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: batch.map((event) => ({ protocolVersion: '0.1', event })) }),
      });
      expect(response.status).toBe(200);
      results.push(...((await response.json()) as { data: { results: Array<Record<string, any>> } }).data.results);
    }
    const wanted = expected.results ?? [];
    expect(results).toHaveLength(wanted.length);
    wanted.forEach((want, index) => {
      const got = results[index] ?? {};
      expect(got.status, `results[${index}] ${JSON.stringify(got.error ?? null)}`).toBe(want.status);
      if (want.duplicate !== undefined) expect(got.duplicate).toBe(want.duplicate);
      if (want.stored?.event) expect(subsetMismatches(got.stored?.event, want.stored.event, 'stored.event')).toEqual([]);
      if (want.stored?.journey) expect(subsetMismatches(got.stored?.journey, want.stored.journey, 'stored.journey')).toEqual([]);
    });
  });
});
