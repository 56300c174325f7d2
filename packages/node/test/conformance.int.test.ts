import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandValue, findUnknownCaseKeys, newRunToken } from '../../../src/ingest/conformance-expand.ts';
import { createRecorder } from '../src/recorder.ts';
import { fakeFetch } from '../src/test-fetch.ts';
import type { Diagnostic, RecordFields } from '../src/types.ts';
import type { JourneyGroup } from '../src/across.ts';
import type { Journey } from '../src/journey.ts';
import { listSdkCases } from './conformance-cases.ts';
import { exactMismatches, subsetMismatches } from './conformance-match.ts';
import { hostTag, placeHostValues } from './host-values.ts';
import { type EnvironmentSettings, type LiveServer, startLiveServer } from './server.ts';

/**
 * The SDK conformance runner of event protocol 11.5: each case drives the recorder against a
 * stub endpoint, compares the captured events and diagnostics, then sends those bytes through the
 * real server's dry run over HTTP (in an environment set up as the case says) and compares the
 * verdicts. The cases are the manifest's, read from the contract's copy and test/sdk-cases.
 */
const { cases, missing } = listSdkCases();
const NODE_LANGUAGES = ['*', 'node', 'javascript', 'typescript'];
const WRAPPERS = ['receive', 'transform', 'validate', 'persist', 'publish', 'consume', 'deliver'] as const;
/** The entity every case's journeys are on (case sdk/across-journeys states it). */
const ENTITY = { type: 'customer', id: '0018Z00002ABC' };

interface SdkCall { call: string; name?: string; args?: Record<string, any>; repeat?: number; journeys?: number }
interface SdkCase {
  id: string;
  languages: string[];
  setup?: { environment?: EnvironmentSettings };
  calls: SdkCall[];
  recorder?: Record<string, unknown>;
  expect: { wire?: Record<string, unknown>; diagnostics?: unknown[]; results?: Array<Record<string, any>> };
}

function runCall(target: Journey | JourneyGroup, call: SdkCall): void {
  const args = call.args ?? {};
  if (call.call === 'record') target.record(args as RecordFields);
  else if (call.call === 'identify') target.identify(args.aliases, args.options);
  else if (call.call === 'fail') target.fail(call.name ?? 'fail', args.error, args.options);
  else if (call.call === 'finish') target.finish(call.name, args.options);
  else if (call.call === 'label') target.label(args.text);
  else if ((WRAPPERS as readonly string[]).includes(call.call)) {
    const wrapper = target[call.call as (typeof WRAPPERS)[number]].bind(target) as Journey['receive'];
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

/** The key the dry run uses: the shared environment, or one set up as the case asks. */
async function keyFor(document: SdkCase): Promise<string> {
  const settings = document.setup?.environment;
  return settings === undefined ? apiKey : server.project('conformance', settings);
}

describe('SDK conformance cases (event protocol 11)', () => {
  it('every case the manifest names has a file', () => {
    expect(missing).toEqual([]);
  });

  it.each(cases.map((entry) => [entry.stem, entry.file]))('%s', async (stem, file) => {
    const document = JSON.parse(readFileSync(file, 'utf8')) as SdkCase;
    expect(findUnknownCaseKeys(document)).toEqual([]);
    expect(document.id).toBe(`sdk/${stem}`);
    // Events ingested before the calls (setup.existing) mean nothing to a dry run of an SDK case.
    expect(Object.keys(document.setup ?? {}).filter((key) => key !== 'environment'), 'setup this runner cannot honour').toEqual([]);
    if (!document.languages.some((language) => NODE_LANGUAGES.includes(language))) return;
    const run = newRunToken();
    const calls = (expandValue(document.calls, { run, hostTag }) as SdkCall[]).map((call) => ({ ...call, args: placeHostValues(call.args ?? {}) }));
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
    const journey = recorder.startJourney({ entity: ENTITY });
    // A call on several journeys runs once through `across`; each journey gets an event of its own.
    const spreads: string[][] = [];
    for (const call of calls) {
      for (let i = 0; i < (call.repeat ?? 1); i++) {
        if ((call.journeys ?? 1) <= 1) runCall(journey, call);
        else {
          const journeys = Array.from({ length: call.journeys as number }, () => recorder.startJourney({ entity: ENTITY }));
          spreads.push(journeys.map((one) => one.journeyId));
          runCall(recorder.across(journeys), call);
        }
      }
    }
    expect(await recorder.shutdown({ timeoutMs: 5_000 })).toBe(true);
    const events = stub.events();
    for (const journeyIds of spreads) {
      const made = events.filter((event) => journeyIds.includes(event.journeyId as string));
      expect(made.map((event) => event.journeyId)).toEqual(journeyIds);
      expect(new Set(made.map((event) => event.id)).size).toBe(journeyIds.length);
    }

    if (expected.wire) {
      for (const event of events) expect(subsetMismatches(event, expected.wire, 'wire')).toEqual([]);
    }
    if (expected.diagnostics) {
      const seen = diagnostics.map((d) => ({ kind: d.kind, detail: d.detail }));
      expect(exactMismatches(seen, expected.diagnostics, 'diagnostics')).toEqual([]);
    }
    // Batches stay within the server's 100 (the stub saw them as the server would).
    expect(stub.batches.every((batch) => batch.length <= 100)).toBe(true);

    const key = await keyFor(document);
    const results: Array<Record<string, any>> = [];
    for (const batch of stub.batches) {
      const response = await fetch(`${server.url}/v1/events/batch?dryRun=true`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
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
