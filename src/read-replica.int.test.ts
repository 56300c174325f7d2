import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from './crypto/keyring.ts';
import { createPool, type Pool } from './db/pool.ts';
import { createReadReplica, type ReadReason, type ReadReplica, type ReadTarget } from './db/read-replica.ts';
import { FRESH_WRITE_COOKIE } from './http/read-routing.ts';
import { testEnvelope } from './ingest/test-fixtures.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../test/helpers/app.ts';
import { startStreamingPair, type StreamingPair } from '../test/helpers/standby.ts';

/**
 * DATABASE_READ_URL against a real streaming standby: stale-tolerant reads go to it while it is in
 * sync, to the primary while its replay lags (paused here), while it is down, and for a requester
 * who has just written (the cookie any instance honours).
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const MAX_LAG_MS = 1000;
let pair: StreamingPair;
let primary: Pool;
let standby: Pool;
let replica: ReadReplica;
let metrics: Metrics;
let project: SeededProject;
let app: FastifyInstance;
let otherInstance: FastifyInstance;

beforeAll(async () => {
  pair = await startStreamingPair();
  primary = createPool({ connectionString: pair.primaryUrl, max: 5, statementTimeoutMs: 15_000 });
  standby = createPool({ connectionString: pair.standbyUrl, max: 5, statementTimeoutMs: 15_000, connectionTimeoutMs: 2_000 });
  metrics = createMetrics(primary);
  replica = createReadReplica({
    primary,
    replica: standby,
    maxLagMs: MAX_LAG_MS,
    sampleIntervalMs: 100,
    onRoute: (target, reason) => metrics.readsRouted.inc({ target, reason }),
  });
  replica.start();
  project = await seedProject(primary, keyring, 'replica');
  ({ app } = await buildTestApp(primary, { keyring, metrics, readReplica: replica, config: { readReplicaMaxLagMs: MAX_LAG_MS } }));
  ({ app: otherInstance } = await buildTestApp(primary, { keyring, metrics, readReplica: replica, config: { readReplicaMaxLagMs: MAX_LAG_MS } }));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await otherInstance?.close();
  await replica?.stop();
  await standby?.end();
  await primary?.end();
  await pair?.stop();
});

async function waitFor(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function routed(target: ReadTarget, reason: ReadReason): Promise<number> {
  const found = (await metrics.readsRouted.get()).values.find((v) => v.labels.target === target && v.labels.reason === reason);
  return found?.value ?? 0;
}

async function ingestJourney(): Promise<string> {
  const answer = await app.inject({ method: 'POST', url: '/v1/events', headers: bearer(project.apiKey), payload: testEnvelope({ timestamp: new Date().toISOString() }) });
  expect(answer.statusCode).toBe(202);
  return (answer.json() as { data: { journeyId: string } }).data.journeyId;
}

const since = () => new Date(Date.now() - 3_600_000).toISOString();

async function listedIds(instance: FastifyInstance, headers: Record<string, string> = {}): Promise<string[]> {
  const answer = await instance.inject({ method: 'GET', url: `/v1/journeys?since=${since()}&limit=100`, headers: { ...bearer(project.apiKey), ...headers } });
  expect(answer.statusCode).toBe(200);
  return (answer.json() as { data: { items: Array<{ journeyId: string }> } }).data.items.map((item) => item.journeyId);
}

async function onStandby(journeyId: string): Promise<boolean> {
  const found = await standby.query('SELECT 1 FROM journeys WHERE id = $1', [journeyId]);
  return found.rowCount === 1;
}

describe('stale-tolerant reads and a streaming standby', () => {
  it('read the replica while it is in sync, and see only what it has replayed', async () => {
    await waitFor('the replica is in use', () => replica.state().inUse);
    const first = await ingestJourney();
    await waitFor('the standby replays the journey', () => onStandby(first));
    const before = await routed('replica', 'in_sync');
    expect(await listedIds(app)).toContain(first);
    expect(await routed('replica', 'in_sync')).toBe(before + 1);

    // Replay paused: a journey written now is on the primary only. Within the lag bound the list
    // still reads the replica, so it does not show yet: proof the read went there.
    await pair.onStandby('SELECT pg_wal_replay_pause()');
    const second = await ingestJourney();
    await replica.sample();
    expect(replica.state().lagMs).toBeLessThanOrEqual(MAX_LAG_MS);
    expect(await listedIds(app)).not.toContain(second);

    // Past the bound the reads go to the primary and find it; the metrics say why.
    await waitFor('the lag exceeds the bound', () => (replica.state().lagMs ?? 0) > MAX_LAG_MS);
    const lagged = await routed('primary', 'lag');
    expect(await listedIds(app)).toEqual(expect.arrayContaining([first, second]));
    expect(await routed('primary', 'lag')).toBe(lagged + 1);
    const scrape = await metrics.registry.metrics();
    expect(scrape).toMatch(/^service_read_replica_in_use 0$/m);
    expect(Number(/^service_read_replica_lag_seconds (\S+)$/m.exec(scrape)?.[1])).toBeGreaterThan(MAX_LAG_MS / 1000);

    // Resumed: the replica catches up and is read again.
    await pair.onStandby('SELECT pg_wal_replay_resume()');
    await waitFor('the replica is in use again', () => replica.state().inUse);
    const back = await routed('replica', 'in_sync');
    expect(await listedIds(app)).toContain(second);
    expect(await routed('replica', 'in_sync')).toBe(back + 1);
    expect(await metrics.registry.metrics()).toMatch(/^service_read_replica_in_use 1$/m);
  }, 60_000);

  it('an idle primary reads as no lag, although its last transaction is old', async () => {
    await waitFor('the replica is in use', () => replica.state().inUse);
    await new Promise((resolve) => setTimeout(resolve, MAX_LAG_MS + 500));
    await replica.sample();
    expect(replica.state()).toEqual({ lagMs: 0, inUse: true });
  }, 30_000);

  it('a requester who just wrote reads from the primary, on any instance, while others read the replica', async () => {
    await waitFor('the replica is in use', () => replica.state().inUse);
    const doomed = await ingestJourney();
    await waitFor('the standby replays the journey', () => onStandby(doomed));
    await pair.onStandby('SELECT pg_wal_replay_pause()');
    try {
      const deleted = await app.inject({ method: 'DELETE', url: `/v1/journeys/${doomed}`, headers: bearer(TEST_ADMIN_TOKEN) });
      expect(deleted.statusCode).toBe(204);
      const cookie = [deleted.headers['set-cookie']].flat().find((value) => value?.startsWith(`${FRESH_WRITE_COOKIE}=`));
      expect(cookie).toBeDefined();
      const fresh = await routed('primary', 'fresh_write');
      // The other instance honours the cookie: the deleted journey is gone for the one who deleted it.
      expect(await listedIds(otherInstance, { cookie: cookie!.split(';')[0]! })).not.toContain(doomed);
      expect(await routed('primary', 'fresh_write')).toBe(fresh + 1);
      // Someone else, within the lag bound, still reads the replica (which has not replayed the delete).
      expect(replica.state().inUse).toBe(true);
      expect(await listedIds(otherInstance)).toContain(doomed);
      // A cookie claiming a window longer than the server's is not honoured.
      const before = await routed('primary', 'fresh_write');
      await listedIds(app, { cookie: `${FRESH_WRITE_COOKIE}=${Date.now() + 3_600_000}` });
      expect(await routed('primary', 'fresh_write')).toBe(before);
    } finally {
      await pair.onStandby('SELECT pg_wal_replay_resume()');
    }
  }, 60_000);

  it('falls back to the primary when the replica is down, and nothing fails', async () => {
    await waitFor('the replica is in use', () => replica.state().inUse);
    const journey = await ingestJourney();
    await waitFor('the standby replays the journey', () => onStandby(journey));
    // An instance whose last sample said "in sync" (it samples once a minute here) sends the read
    // to the replica, finds it gone, and answers from the primary.
    const unaware = createReadReplica({
      primary,
      replica: standby,
      maxLagMs: MAX_LAG_MS,
      sampleIntervalMs: 60_000,
      onRoute: (target, reason) => metrics.readsRouted.inc({ target, reason }),
    });
    await unaware.sample();
    expect(unaware.state().inUse).toBe(true);
    const { app: unawareInstance } = await buildTestApp(primary, { keyring, metrics, readReplica: unaware, config: { readReplicaMaxLagMs: MAX_LAG_MS } });
    await pair.stopStandby();
    try {
      const [inSync, unavailable] = [await routed('replica', 'in_sync'), await routed('primary', 'unavailable')];
      expect(await listedIds(unawareInstance)).toContain(journey);
      expect(await routed('replica', 'in_sync')).toBe(inSync + 1);
      expect(await routed('primary', 'unavailable')).toBe(unavailable + 1);
      // The failed read marks the replica unavailable at once, without waiting for a sample.
      expect(unaware.state()).toEqual({ lagMs: null, inUse: false });
      await waitFor('the replica is out of use', () => !replica.state().inUse);
      expect(replica.state().lagMs).toBeNull();
      const later = await routed('primary', 'unavailable');
      expect(await listedIds(app)).toContain(journey);
      expect(await routed('primary', 'unavailable')).toBe(later + 1);
      const search = await app.inject({ method: 'GET', url: `/v1/search?q=${journey}&since=${since()}`, headers: bearer(project.apiKey) });
      expect(search.statusCode).toBe(200);
      expect((search.json() as { data: { items: Array<{ journeyId: string }> } }).data.items.map((item) => item.journeyId)).toEqual([journey]);
      expect(await metrics.registry.metrics()).toMatch(/^service_read_replica_lag_seconds -1$/m);
    } finally {
      await unawareInstance.close();
      await pair.startStandby();
    }
    await waitFor('the replica is in use again', () => replica.state().inUse);
  }, 60_000);
});
