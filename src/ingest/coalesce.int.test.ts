import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-key-service.ts';
import type { Config } from '../config/config.ts';
import { createKeyring } from '../crypto/keyring.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import pino from 'pino';
import { findEnvironment } from '../projects/environments-sql.ts';
import { createSingleEventCoalescer, ingestCoalesced } from './coalesce.ts';
import { systemMicros } from './received-clock.ts';
import { countRows, testEnvelope as envelope, uid } from './test-fixtures.ts';

/**
 * POST /v1/events with coalescing (src/ingest/coalesce.ts): each request keeps exactly the
 * answer it gets when every event has a transaction of its own, whether its group committed or
 * failed, and groups never mix environments.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
/** Statements run at most this long here, so that a slow event times out quickly. */
const STATEMENT_TIMEOUT_MS = 1_000;
/** Members of each verdict scenario below that reach the coalescer (the others are refused before). */
const SCENARIO_MEMBERS = 11;

let db: TestDatabase;
let project: SeededProject;
let stagingKey: string;
const apps: Array<{ app: FastifyInstance; metrics: Metrics }> = [];

async function appWith(config: Partial<Config>) {
  const { app, deps } = await buildTestApp(db.pool, { keyring, config });
  apps.push({ app, metrics: deps.metrics });
  return { app, metrics: deps.metrics };
}

beforeAll(async () => {
  db = await createTestDatabase({ statementTimeoutMs: STATEMENT_TIMEOUT_MS });
  project = await seedProject(db.pool, keyring, 'coalesce');
  stagingKey = (await createApiKey(db.pool, keyring, { projectSlug: 'coalesce', environmentName: 'staging', name: 'staging', defaultRetentionDays: 30 })).apiKey;
  // A real constraint violation and a real statement timeout for chosen event ids: the
  // database refuses them as it would any unforeseen value, nothing is mocked.
  await db.pool.query(`
    ALTER TABLE events ADD CONSTRAINT test_poisoned_event CHECK (id NOT LIKE 'evt_poison%');
    CREATE FUNCTION test_slow_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id LIKE 'evt_slow%' THEN PERFORM pg_sleep(${(STATEMENT_TIMEOUT_MS * 3) / 1000}); END IF; RETURN NEW; END $$;
    CREATE TRIGGER test_slow_event BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION test_slow_event();
  `);
});
afterAll(async () => {
  for (const { app } of apps) await app.close();
  await db.drop();
});

function send(app: FastifyInstance, body: unknown, key: string = project.apiKey) {
  return app.inject({ method: 'POST', url: '/v1/events', headers: { 'content-type': 'application/json', ...bearer(key) }, payload: JSON.stringify(body) });
}

/** The answer as a client sees it, without ids: status and code, or duplicate. */
function verdict(response: LightMyRequestResponse): string {
  const body = response.json();
  return response.statusCode === 202 ? `202 duplicate=${body.data.duplicate}` : `${response.statusCode} ${body.error.code}`;
}

async function groups(metrics: Metrics) {
  const values = (await metrics.coalescedGroupEvents.get()).values;
  const of = (suffix: string) => values.find((v) => v.metricName === `service_ingest_coalesced_group_events${suffix}`)?.value ?? 0;
  const fallbacks = (await metrics.coalesceFallbacks.get()).values[0]?.value ?? 0;
  return { count: of('_count'), events: of('_sum'), fallbacks };
}

/**
 * Every verdict of the single route at once. Pairs sharing an id answer in either order, so
 * each pair is reported sorted. With `failing`, one member breaks a constraint and one runs
 * past the statement timeout; otherwise two plain events take their places.
 */
async function verdictScenario(app: FastifyInstance, failing: boolean): Promise<Record<string, string>> {
  const stored = envelope();
  const storedOther = envelope();
  const staging = envelope({ environment: 'staging' });
  // Stored beforehand through the batch route: the single route's groups below are full at SCENARIO_MEMBERS.
  const before = async (body: unknown, key = project.apiKey) =>
    expect((await app.inject({ method: 'POST', url: '/v1/events/batch', headers: { 'content-type': 'application/json', ...bearer(key) }, payload: { events: [body] } })).statusCode).toBe(202);
  await before(stored);
  await before(storedOther);
  await before(staging, stagingKey);
  const twin = envelope();
  const rival = envelope();
  const requests: Record<string, unknown> = {
    fresh: envelope(),
    resent: stored,
    changed: { ...storedOther, event: { ...storedOther.event, name: 'another name' } },
    twinA: twin,
    twinB: structuredClone(twin),
    rivalA: rival,
    rivalB: { ...rival, event: { ...rival.event, name: 'another name' } },
    otherEnvironmentsJourney: envelope({ journeyId: staging.event.journeyId }),
    unstorable: envelope({ name: 'bad\u0000name' }),
    poisoned: failing ? envelope({ id: `evt_poison_${uid()}` }) : envelope(),
    slow: failing ? envelope({ id: `evt_slow_${uid()}` }) : envelope(),
    // Refused before storage: they never join a group.
    invalid: envelope({ durationMs: -1 }),
    otherEnvironment: envelope({ environment: 'staging' }),
  };
  const names = Object.keys(requests);
  const responses = await Promise.all(names.map((name) => send(app, requests[name])));
  const answers = Object.fromEntries(names.map((name, i) => [name, verdict(responses[i]!)]));
  const pair = (a: string, b: string) => [answers[a]!, answers[b]!].sort().join(' + ');
  const { twinA: _a, twinB: _b, rivalA: _c, rivalB: _d, ...single } = answers;
  return { ...single, twins: pair('twinA', 'twinB'), rivals: pair('rivalA', 'rivalB') };
}

const EXPECTED = {
  fresh: '202 duplicate=false',
  resent: '202 duplicate=true',
  changed: '409 event_id_conflict',
  twins: '202 duplicate=false + 202 duplicate=true',
  rivals: '202 duplicate=false + 409 event_id_conflict',
  otherEnvironmentsJourney: '409 journey_environment_mismatch',
  unstorable: '400 unstorable_payload',
  invalid: '400 invalid_event',
  otherEnvironment: '403 unauthorized_environment',
};

describe('coalesced single events keep every verdict per request', () => {
  it('in a group that commits: one shared transaction, the answers of separate transactions', async () => {
    const coalesced = await appWith({ ingestCoalesceMaxWaitMs: 30_000, ingestCoalesceMaxEvents: SCENARIO_MEMBERS });
    const alone = await appWith({ ingestCoalesceMaxEvents: 0 });
    const expected = { ...EXPECTED, poisoned: '202 duplicate=false', slow: '202 duplicate=false' };
    expect(await verdictScenario(coalesced.app, false)).toEqual(expected);
    expect(await groups(coalesced.metrics)).toEqual({ count: 1, events: SCENARIO_MEMBERS, fallbacks: 0 });
    expect(await verdictScenario(alone.app, false)).toEqual(expected);
    expect(await groups(alone.metrics)).toEqual({ count: 0, events: 0, fallbacks: 0 });
  });

  it('in a group that fails: the failing members get 500 and 503, their neighbours are stored', async () => {
    const coalesced = await appWith({ ingestCoalesceMaxWaitMs: 30_000, ingestCoalesceMaxEvents: SCENARIO_MEMBERS });
    const alone = await appWith({ ingestCoalesceMaxEvents: 0 });
    const expected = { ...EXPECTED, poisoned: '500 internal_error', slow: '503 query_timeout' };
    expect(await verdictScenario(coalesced.app, true)).toEqual(expected);
    expect(await groups(coalesced.metrics)).toEqual({ count: 1, events: SCENARIO_MEMBERS, fallbacks: 1 });
    expect(await verdictScenario(alone.app, true)).toEqual(expected);
    expect(await countRows(db.pool, "events WHERE id LIKE 'evt_poison%' OR id LIKE 'evt_slow%'", [])).toBe(0);
  }, 30_000);
});

describe('groups', () => {
  it('never mix environments, and each event is captured under its own environment settings', async () => {
    await db.pool.query("UPDATE environments SET capture_mode = 'metadata-only' WHERE project_id = $1 AND name = 'staging'", [project.projectId]);
    const { app, metrics } = await appWith({ ingestCoalesceMaxWaitMs: 30_000, ingestCoalesceMaxEvents: 3 });
    const input = { orderId: 'ord-1', total: 12 };
    const production = Array.from({ length: 3 }, () => envelope({ input }));
    const staging = Array.from({ length: 3 }, () => envelope({ environment: 'staging', input }));
    const responses = await Promise.all([...production.map((e) => send(app, e)), ...staging.map((e) => send(app, e, stagingKey))]);
    expect(responses.map(verdict)).toEqual(Array(6).fill('202 duplicate=false'));
    // Full at three: two groups, one per environment (a mixed group would have filled first).
    expect(await groups(metrics)).toEqual({ count: 2, events: 6, fallbacks: 0 });
    const hasInput = async (ids: unknown[]) =>
      (await db.pool.query<{ has_input: boolean }>('SELECT has_input FROM events WHERE id = ANY($1)', [ids])).rows.map((r) => r.has_input);
    expect(await hasInput(production.map((e) => e.event.id))).toEqual([true, true, true]);
    expect(await hasInput(staging.map((e) => e.event.id))).toEqual([false, false, false]);
  });

  it('waits at most INGEST_COALESCE_MAX_WAIT_MS for company: a lone event is stored alone', async () => {
    const { app, metrics } = await appWith({ ingestCoalesceMaxWaitMs: 20, ingestCoalesceMaxEvents: 100 });
    const lone = envelope();
    expect(verdict(await send(app, lone))).toBe('202 duplicate=false');
    expect(await groups(metrics)).toEqual({ count: 1, events: 1, fallbacks: 0 });
    expect(await countRows(db.pool, 'events WHERE id = $1', [lone.event.id])).toBe(1);
  });

  it('are counted in service_ingest_coalesced_group_events on /metrics', async () => {
    const { app, metrics } = await appWith({ ingestCoalesceMaxWaitMs: 30_000, ingestCoalesceMaxEvents: 2 });
    await Promise.all([send(app, envelope()), send(app, envelope())]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('service_ingest_coalesced_group_events_bucket{le="2"} 1');
    expect(text).toContain('service_ingest_coalesced_group_events_bucket{le="1"} 0');
    expect(text).toContain('service_ingest_coalesce_fallbacks_total 0');
  });

  it('store an event whose client went away while it waited, and go on answering', async () => {
    const { app, metrics } = await appWith({ ingestCoalesceMaxWaitMs: 2_000, ingestCoalesceMaxEvents: 100 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const abandoned = envelope();
    const body = JSON.stringify(abandoned);
    await new Promise<void>((resolve) => {
      const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/events', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...bearer(project.apiKey) } });
      request.on('error', () => resolve());
      request.end(body);
      // Gone while its event waits in the open group (stored only after the 2 s).
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 1_000);
    });
    const until = Date.now() + 5_000;
    while ((await countRows(db.pool, 'events WHERE id = $1', [abandoned.event.id])) === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await countRows(db.pool, 'events WHERE id = $1', [abandoned.event.id])).toBe(1);
    expect(await groups(metrics)).toEqual({ count: 1, events: 1, fallbacks: 0 });
    // Its resend is a duplicate, answered as usual.
    expect(verdict(await send(app, abandoned))).toBe('202 duplicate=true');
  });

  it('are handed over at shutdown: close() stores the waiting events and answers them', async () => {
    const { app, metrics } = await appWith({ ingestCoalesceMaxWaitMs: 30_000, ingestCoalesceMaxEvents: 100 });
    const waiting = [envelope(), envelope()];
    const answers = waiting.map((e) => send(app, e));
    // Both are in the open group once the group histogram has nothing yet and the rows are absent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await groups(metrics)).toEqual({ count: 0, events: 0, fallbacks: 0 });
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await Promise.all(answers)).map(verdict)).toEqual(['202 duplicate=false', '202 duplicate=false']);
    expect(await countRows(db.pool, 'events WHERE id = ANY($1)', [waiting.map((e) => e.event.id)])).toBe(2);
  });

  it('gather while maxInFlight groups of their environment are being stored, then go at once', async () => {
    const sizes: number[] = [];
    const deps = { pool: db.pool, keyring, logger: pino({ level: 'silent' }), micros: systemMicros, allowFullPayloadCapture: false, maxEventPayloadBytes: 262_144 };
    const coalescer = createSingleEventCoalescer(deps, { maxWaitMs: 5, maxEvents: 100, maxInFlight: 1 }, { group: (n) => sizes.push(n), fallback: () => {} });
    const scope = { projectId: project.projectId, environment: (await findEnvironment(db.pool, project.projectId, 'production'))! };
    const journey = envelope();
    await send((await appWith({ ingestCoalesceMaxEvents: 0 })).app, journey);
    // The first group is held by a lock on its journey; three events come 30 ms apart meanwhile.
    const holder = await db.pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM journeys WHERE project_id = $1 AND id = $2 FOR UPDATE', [project.projectId, journey.event.journeyId]);
    const first = ingestCoalesced(deps, coalescer, scope, envelope({ journeyId: journey.event.journeyId }));
    const later: Array<Promise<unknown>> = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      later.push(ingestCoalesced(deps, coalescer, scope, envelope()));
    }
    expect(sizes).toEqual([1]);
    await holder.query('COMMIT');
    holder.release();
    const results = await Promise.all([first, ...later]);
    expect(results.map((r) => (r as { status: string }).status)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
    // Without the bound each would have gone alone after its 5 ms: [1, 1, 1, 1].
    expect(sizes).toEqual([1, 3]);
  });
});

