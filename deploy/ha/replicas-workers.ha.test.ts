import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvelope } from '../../src/ingest/test-fixtures.ts';
import { createProjectKey, startLoad, statusCounts } from './load.ts';
import { metricValue, scrape } from './metrics.ts';
import { ADMIN_TOKEN, sleep, startTopology, waitFor, type JtraceInstance, type Topology } from './topology.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';
import { journeysWithLostPhone, outbox, pendingJourneys, streamLosingJourneys } from './worker-kill.ts';

/**
 * Scenario 5 of docs/deployment.md, "lagging replica": the replicas' replay is paused (Patroni in
 * maintenance mode) while clients write. The
 * `api,ingest` instances read search and lists from HAProxy's replica port while it is in sync;
 * once its lag passes READ_REPLICA_MAX_LAG_MS they read the primary (a journey just written is
 * found), the metrics say so, and after the replay resumes reads go back to the replica.
 */

let topology: Topology;
let apiKey: string;
let apiInstances: JtraceInstance[];

beforeAll(async () => {
  // The scenario's webhook receiver listens on loopback.
  topology = await startTopology({ env: { ALERT_ALLOWED_HOSTS: '127.0.0.1' } });
  apiKey = createProjectKey(topology.primaryUrl, 'replica-lag');
  apiInstances = topology.instances.filter((i) => i.roles !== 'worker');
});
afterAll(async () => {
  await topology?.stop();
});

async function onReplicas(sql: string): Promise<string[]> {
  const members = await topology.members();
  const replicas = topology.nodes.filter((node) => members.some((m) => m.name === node.name && m.role !== 'leader'));
  for (const node of replicas) {
    const client = new pg.Client(topology.nodeUrl(node));
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }
  return replicas.map((node) => node.name);
}

async function allInstances(condition: (text: string) => boolean): Promise<boolean> {
  for (const instance of apiInstances) if (!condition(await scrape(instance))) return false;
  return true;
}

const inUse = (text: string) => metricValue(text, 'service_read_replica_in_use') === 1;

async function routedTotal(target: string, reason: string): Promise<number> {
  let total = 0;
  for (const instance of apiInstances) total += metricValue(await scrape(instance), 'service_reads_routed_total', { target, reason }) ?? 0;
  return total;
}

/** Writes one event through HAProxy and returns its journey id. */
async function writeJourney(): Promise<string> {
  const envelope = testEnvelope({ timestamp: new Date().toISOString() });
  const response = await fetch(`${topology.jtraceUrl}/v1/events`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify(envelope),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { data: { journeyId: string } }).data.journeyId;
}

/** Searches the journey through HAProxy (either instance); true when found. */
async function found(journeyId: string): Promise<boolean> {
  const since = new Date(Date.now() - 3_600_000).toISOString();
  const response = await fetch(`${topology.jtraceUrl}/v1/search?q=${journeyId}&since=${since}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { items: Array<{ journeyId: string }> } }).data.items.some((item) => item.journeyId === journeyId);
}

describe('a lagging replica', () => {
  it('stale reads fall back to the primary while replay is paused and return to the replica after', async () => {
    await waitFor('both api instances reading the replica', () => allInstances(inUse), 60_000);
    const load = startLoad(topology.jtraceUrl, apiKey, { batch: 2, single: 2 });
    try {
      // In sync: reads go to the replica and find what was written a moment ago.
      const before = await routedTotal('replica', 'in_sync');
      const first = await writeJourney();
      await waitFor('the journey found', () => found(first), 10_000);
      expect(await routedTotal('replica', 'in_sync')).toBeGreaterThan(before);

      // Maintenance mode first: Patroni would resume the replay otherwise.
      topology.maintenance(true);
      const pausedAt = Date.now();
      const paused = await onReplicas('SELECT pg_wal_replay_pause()');
      expect(paused.length).toBeGreaterThan(0);
      await waitFor('both instances off the replica', () => allInstances((text) => !inUse(text)), 30_000);
      const readsOnPrimaryMs = Date.now() - pausedAt;
      const lagged = await routedTotal('primary', 'lag');
      // A journey just written is found at once: the read goes to the primary.
      for (let i = 0; i < 4; i += 1) expect(await found(await writeJourney())).toBe(true);
      expect(await routedTotal('primary', 'lag')).toBeGreaterThanOrEqual(lagged + 4);
      for (const instance of apiInstances) {
        expect(metricValue(await scrape(instance), 'service_read_replica_lag_seconds')).toBeGreaterThan(1);
      }

      const resumedAt = Date.now();
      await onReplicas('SELECT pg_wal_replay_resume()');
      await waitFor('both instances back on the replica', () => allInstances(inUse), 30_000);
      const backOnReplicaMs = Date.now() - resumedAt;
      topology.maintenance(false);
      const back = await routedTotal('replica', 'in_sync');
      const last = await writeJourney();
      await waitFor('the journey found on the replica', () => found(last), 10_000);
      expect(await routedTotal('replica', 'in_sync')).toBeGreaterThan(back);
      await sleep(500);
      await load.stop();
      console.log(JSON.stringify({ scenario: 'lagging replica', paused, readsOnPrimaryMs, backOnReplicaMs, counts: statusCounts(load.answers) }));
      expect(load.answers.filter((a) => a.status !== 202 && a.status !== 503)).toEqual([]);
    } finally {
      await onReplicas('SELECT pg_wal_replay_resume()').catch(() => undefined);
      try {
        topology.maintenance(false);
      } catch {
        // Already out of maintenance mode.
      }
      await load.stop().catch(() => undefined);
    }
  });
});

describe('a worker killed mid-analysis and mid-delivery', () => {
  it('another worker takes over, no finding is lost, a delivery repeats only after its claim lapsed and carries its id', async () => {
    const slug = 'worker-kill';
    const key = createProjectKey(topology.primaryUrl, slug);
    const receiver = await startWebhookReceiver({ holdFirstMs: 8_000 });
    try {
      const rule = await fetch(`${topology.jtraceUrl}/v1/projects/${slug}/alert-rules`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify({ name: 'Lost phone', kind: 'lost', path: 'customer.phone', environment: 'production', channel: { type: 'webhook', url: receiver.url } }),
      });
      expect(rule.status).toBe(201);
      const first = topology.instances.find((i) => i.roles === 'worker')!;
      // The second worker waits as a standby: the first holds the job locks.
      const second = await topology.addInstance('worker');
      const stream = streamLosingJourneys(topology.jtraceUrl, key);
      let killedAt = 0;
      let takeoverMs = 0;
      try {
        await waitFor('the first worker analysing', async () => (metricValue(await scrape(first), 'service_findings_analyzer_batches_total') ?? 0) > 0, 60_000);
        // Mid-delivery: the receiver holds the first attempt unanswered; mid-analysis: journeys keep coming.
        await waitFor('a delivery in flight', async () => receiver.deliveries.length > 0, 120_000);
        expect(metricValue(await scrape(second), 'service_findings_analyzer_batches_total')).toBe(0);
        // Mid-analysis: killed while journeys wait. The worker keeps up with the steady stream, so
        // the queue empties between its passes; the kill waits for a moment it is not empty.
        await waitFor('journeys waiting for analysis', async () => (await pendingJourneys(topology.primaryUrl)) > 0, 30_000);
        killedAt = Date.now();
        first.process!.kill('SIGKILL');
        await waitFor('the second worker analysing', async () => (metricValue(await scrape(second), 'service_findings_analyzer_batches_total') ?? 0) > 0, 60_000);
        takeoverMs = Date.now() - killedAt;
      } finally {
        await sleep(3_000);
        await stream.stop();
      }
      await waitFor('every journey analysed', async () => (await pendingJourneys(topology.primaryUrl)) === 0, 120_000);
      const analysed = await journeysWithLostPhone(topology.primaryUrl, stream.acknowledged);

      // The delivery cut by the kill is sent again once its claim (10 s deadline + 1 min) lapses.
      const inFlight = receiver.deliveries[0]!.id;
      await waitFor('the cut delivery sent again', async () => (receiver.countsById().get(inFlight) ?? 0) >= 2, 150_000);
      await waitFor('every notification sent', async () => (await outbox(topology.primaryUrl)).every((n) => n.status === 'sent'), 120_000);
      const repeatAfterMs = receiver.deliveries.filter((d) => d.id === inFlight)[1]!.receivedAt - receiver.deliveries[0]!.receivedAt;
      console.log(JSON.stringify({
        scenario: 'worker killed', takeoverMs, journeys: stream.acknowledged.length, analysed, repeatAfterMs,
        deliveries: receiver.deliveries.length, ids: receiver.countsById().size, refused: Object.fromEntries(stream.refused),
      }));
      expect(stream.acknowledged.length).toBeGreaterThan(0);
      expect(analysed).toBe(stream.acknowledged.length);
      expect(takeoverMs).toBeLessThan(30_000);
      // Every delivery names its notification, in the header and the body alike.
      for (const delivery of receiver.deliveries) {
        expect(delivery.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(delivery.bodyId).toBe(delivery.id);
      }
      // Only the delivery in flight at the kill came twice, and not before its claim lapsed.
      const repeated = [...receiver.countsById()].filter(([, n]) => n > 1);
      expect(repeated).toEqual([[inFlight, 2]]);
      expect(repeatAfterMs).toBeGreaterThanOrEqual(60_000);
      expect(repeatAfterMs).toBeLessThan(120_000);
      expect(new Set((await outbox(topology.primaryUrl)).map((n) => n.id))).toEqual(new Set(receiver.countsById().keys()));
    } finally {
      await receiver.close();
    }
  });
});
