import { readFileSync, readdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-key-service.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { updateEnvironment, type CaptureMode } from '../projects/environments-sql.ts';
import { createProject } from '../projects/projects-sql.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp } from '../../test/helpers/app.ts';
import { CONFORMANCE_DIR, WIRE_DIR } from '../../test/helpers/conformance.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { expandCase, findUnknownCaseKeys, newRunToken } from './conformance-expand.ts';

/**
 * The wire conformance runner of event protocol section 11: every case file in
 * test/conformance/wire (the project's copy of the contract's cases) runs twice, as a real send read back through the read routes and
 * as a dry run, and both must meet the expectation.
 */

interface WireCase {
  id: string;
  layer: string;
  setup?: {
    environment?: { captureMode?: CaptureMode; allowFullPayload?: boolean; redactionPaths?: string[]; captureAllowlist?: string[] };
    existing?: unknown[];
    otherEnvironment?: unknown[];
  };
  send: unknown;
  expect: { request?: { status: number; code: string }; results?: ExpectedResult[] };
}

interface ExpectedResult {
  status: string;
  duplicate?: boolean;
  eventId?: string;
  error?: { code: string; httpStatus: number; details?: Array<{ path: string }> };
  stored?: { event?: Record<string, unknown>; journey?: Record<string, unknown> };
}

const caseFiles = readdirSync(WIRE_DIR).filter((file) => file.endsWith('.json')).sort();
const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** 11.4: `$matches` and `$absent` matchers; objects exact below the first level. */
function assertMatches(actual: unknown, expected: unknown, path: string): void {
  if (isPlainObject(expected) && Object.keys(expected).length === 1 && '$matches' in expected) {
    expect(typeof actual, `${path} is a string`).toBe('string');
    expect(actual as string, path).toMatch(new RegExp(expected.$matches as string));
    return;
  }
  if (isPlainObject(expected)) {
    expect(isPlainObject(actual), `${path} is an object`).toBe(true);
    const actualObject = actual as Record<string, unknown>;
    const wanted = Object.keys(expected).filter((key) => !(isPlainObject(expected[key]) && (expected[key] as { $absent?: unknown }).$absent === true));
    for (const key of Object.keys(expected)) {
      const value = expected[key];
      if (isPlainObject(value) && value.$absent === true && Object.keys(value).length === 1) {
        expect(Object.hasOwn(actualObject, key), `${path}.${key} is absent`).toBe(false);
      }
    }
    expect(Object.keys(actualObject).sort(), `${path} has exactly the listed keys`).toEqual(wanted.sort());
    for (const key of wanted) assertMatches(actualObject[key], expected[key], `${path}.${key}`);
    return;
  }
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), `${path} is an array`).toBe(true);
    expect((actual as unknown[]).length, `${path} length`).toBe(expected.length);
    expected.forEach((item, index) => assertMatches((actual as unknown[])[index], item, `${path}[${index}]`));
    return;
  }
  expect(actual, path).toStrictEqual(expected);
}

/** First level of stored.event / stored.journey: listed keys present and matching, others ignored. */
function assertSubset(actual: Record<string, unknown>, expected: Record<string, unknown>, path: string): void {
  for (const [key, value] of Object.entries(expected)) {
    if (isPlainObject(value) && value.$absent === true && Object.keys(value).length === 1) {
      expect(Object.hasOwn(actual, key), `${path}.${key} is absent`).toBe(false);
      continue;
    }
    expect(Object.hasOwn(actual, key), `${path}.${key} is present`).toBe(true);
    assertMatches(actual[key], value, `${path}.${key}`);
  }
}

function assertResult(actual: Record<string, unknown>, expected: ExpectedResult, index: number): void {
  const where = `results[${index}]`;
  expect(actual.status, `${where}.status (${JSON.stringify(actual.error ?? null)})`).toBe(expected.status);
  if (expected.duplicate !== undefined) expect(actual.duplicate, `${where}.duplicate`).toBe(expected.duplicate);
  if (expected.eventId !== undefined) expect(actual.eventId, `${where}.eventId`).toBe(expected.eventId);
  if (expected.error) {
    const error = actual.error as { code: string; httpStatus: number; details?: Array<{ path: string }> };
    expect(error.code, `${where}.error.code`).toBe(expected.error.code);
    expect(error.httpStatus, `${where}.error.httpStatus`).toBe(expected.error.httpStatus);
    if (expected.error.details) {
      expect((error.details ?? []).map((d) => ({ path: d.path })), `${where}.error.details`).toEqual(expected.error.details);
    }
  }
}

let db: TestDatabase;
let plainApp: FastifyInstance;
let fullCaptureApp: FastifyInstance;
let projectCounter = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  plainApp = (await buildTestApp(db.pool, { keyring })).app;
  fullCaptureApp = (await buildTestApp(db.pool, { keyring, config: { allowFullPayloadCapture: true } })).app;
});
afterAll(async () => {
  await plainApp.close();
  await fullCaptureApp.close();
  await db.drop();
});

async function provision(setup: WireCase['setup']) {
  const slug = `conformance-${++projectCounter}`;
  const project = await createProject(db.pool, slug, slug);
  const keys: Record<string, string> = {};
  for (const environment of ['conformance', 'conformance-other']) {
    const created = await createApiKey(db.pool, keyring, { projectSlug: slug, environmentName: environment, name: 'runner', defaultRetentionDays: 30 });
    keys[environment] = created.apiKey;
    const settings = setup?.environment;
    await updateEnvironment(db.pool, project.id, environment, {
      captureMode: settings?.captureMode ?? 'redacted-payload',
      redactionPaths: settings?.redactionPaths ?? [],
      captureAllowlist: settings?.captureAllowlist ?? [],
    });
  }
  return { projectId: project.id, keys };
}

async function sendBatch(app: FastifyInstance, key: string, body: unknown, dryRun: boolean) {
  return app.inject({
    method: 'POST',
    url: dryRun ? '/v1/events/batch?dryRun=true' : '/v1/events/batch',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

async function countEvents(projectId: string): Promise<number> {
  const result = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [projectId]);
  return result.rows[0]!.n;
}

async function runCase(file: string, dryRun: boolean): Promise<void> {
  const raw = JSON.parse(readFileSync(new URL(file, WIRE_DIR), 'utf8')) as WireCase;
  expect(findUnknownCaseKeys(raw), 'case keys').toEqual([]);
  expect(raw.layer).toBe('wire');
  const testCase = expandCase(raw, { run: newRunToken() });
  const app = testCase.setup?.environment?.allowFullPayload ? fullCaptureApp : plainApp;
  const { projectId, keys } = await provision(testCase.setup);

  for (const [environment, envelopes] of [
    ['conformance', testCase.setup?.existing ?? []],
    ['conformance-other', testCase.setup?.otherEnvironment ?? []],
  ] as const) {
    for (const envelope of envelopes) {
      const response = await sendBatch(app, keys[environment]!, { events: [envelope] }, false);
      expect(response.statusCode, 'setup send').toBe(202);
      expect(response.json().data.results[0].status, `setup event accepted: ${response.body}`).toBe('accepted');
    }
  }
  const setupEvents = await countEvents(projectId);

  const response = await sendBatch(app, keys.conformance!, testCase.send, dryRun);
  if (testCase.expect.request) {
    expect(response.statusCode).toBe(testCase.expect.request.status);
    expect(response.json().error.code).toBe(testCase.expect.request.code);
    return;
  }
  expect(response.statusCode, response.body.slice(0, 500)).toBe(dryRun ? 200 : 202);
  const data = response.json().data;
  if (dryRun) expect(data.dryRun).toBe(true);
  const expected = testCase.expect.results ?? [];
  expect(data.results).toHaveLength(expected.length);
  const sent = (testCase.send as { events: Array<{ event?: { journeyId?: string } }> }).events;

  for (const [index, expectation] of expected.entries()) {
    const actual = data.results[index] as Record<string, unknown>;
    assertResult(actual, expectation, index);
    if (!expectation.stored) continue;
    let storedEvent: Record<string, unknown> | undefined;
    let storedJourney: Record<string, unknown> | undefined;
    if (dryRun) {
      const stored = actual.stored as { event: Record<string, unknown>; journey: Record<string, unknown> };
      expect(stored, `results[${index}].stored`).toBeDefined();
      storedEvent = stored.event;
      storedJourney = stored.journey;
    } else {
      const headers = { authorization: `Bearer ${keys.conformance}` };
      const event = await app.inject({ method: 'GET', url: `/v1/events/${encodeURIComponent(actual.eventId as string)}`, headers });
      expect(event.statusCode).toBe(200);
      const { receivedAt: _dropped, ...eventWithoutReceivedAt } = event.json().data;
      storedEvent = eventWithoutReceivedAt;
      const journeyId = sent[index]!.event!.journeyId!;
      const journey = await app.inject({ method: 'GET', url: `/v1/journeys/${encodeURIComponent(journeyId)}`, headers });
      expect(journey.statusCode).toBe(200);
      storedJourney = journey.json().data;
    }
    if (expectation.stored.event) assertSubset(storedEvent!, expectation.stored.event, `results[${index}].stored.event`);
    if (expectation.stored.journey) assertSubset(storedJourney!, expectation.stored.journey, `results[${index}].stored.journey`);
  }
  if (dryRun) expect(await countEvents(projectId), 'a dry run leaves only the setup events').toBe(setupEvents);
}

describe('wire conformance', () => {
  it('has a file for every wire id the manifest lists', () => {
    const manifest = JSON.parse(readFileSync(new URL('manifest.json', CONFORMANCE_DIR), 'utf8')) as { wire: string[] };
    const present = new Set(caseFiles.map((file) => `wire/${file.replace(/\.json$/, '')}`));
    expect(manifest.wire.filter((id) => !present.has(id))).toEqual([]);
    expect(caseFiles.length).toBeGreaterThanOrEqual(46);
  });

  for (const file of caseFiles) {
    it(`${file} (real send)`, () => runCase(file, false));
    it(`${file} (dry run)`, () => runCase(file, true));
  }
});
