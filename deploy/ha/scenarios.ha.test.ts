import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countStored, createProjectKey, startLoad, statusCounts, type Load } from './load.ts';
import { describeNetworkFaults } from './network-scenario.ts';
import { describePgBouncer } from './pgbouncer-scenario.ts';
import { startNodeHost, startPythonHost, storedOf, type HostResult } from './sdk-hosts.ts';
import { sleep, startTopology, waitFor, type Topology } from './topology.ts';

/**
 * The scenarios of docs/deployment.md on one topology, each while 8 clients send batches and 8
 * send single events through HAProxy to two `api,ingest` instances, connected to PostgreSQL
 * through PgBouncer in session mode (pgbouncer-scenario.ts): the primary's machine dies
 * (Patroni and its postmaster killed with SIGKILL), a planned switchover, a rolling restart of the
 * jtrace instances. Every event answered 202 is read back from the primary; meanwhile clients get
 * 503 with Retry-After, never 500, never an answer slower than the request timeout; ingestion is
 * back within 30 s.
 */

let topology: Topology;
let apiKey: string;

beforeAll(async () => {
  topology = await startTopology();
  apiKey = createProjectKey(topology.primaryUrl, 'failover');
});
afterAll(async () => {
  await topology?.stop();
});

const REQUEST_TIMEOUT_MS = 30_000;

function report(scenario: string, load: Load, extra: Record<string, unknown>) {
  console.log(JSON.stringify({
    scenario, ...extra, counts: statusCounts(load.answers), acknowledged: load.acknowledged.length,
    unanswered: load.unanswered.length, slowestMs: Math.max(...load.answers.map((a) => a.ms)),
  }));
}

/** The guarantees every scenario keeps: only 202 or 503 with Retry-After, in time, nothing lost. */
async function expectGuarantees(load: Load): Promise<void> {
  expect(load.unanswered).toEqual([]);
  expect(load.answers.filter((a) => a.status !== 202 && a.status !== 503)).toEqual([]);
  expect(load.answers.filter((a) => a.status === 503 && a.retryAfter === null)).toEqual([]);
  expect(Math.max(...load.answers.map((a) => a.ms))).toBeLessThan(REQUEST_TIMEOUT_MS);
  expect(await countStored(topology.primaryUrl, load.acknowledged)).toBe(load.acknowledged.length);
}

/**
 * An SDK host's guarantees: no SDK call raised into it, every event it counts as sent is stored,
 * and with its queue drained at shutdown nothing was dropped or refused.
 */
async function expectSdkGuarantees(host: HostResult): Promise<void> {
  const stored = await storedOf(topology.primaryUrl, host);
  console.log(JSON.stringify({ host: host.service, calls: host.calls, settled: host.settled, ...host.counters, stored: stored.byService }));
  expect(host.escaped).toEqual([]);
  expect(host.wrongResults).toBe(0);
  expect(host.counters.sent + host.counters.rejected + host.counters.dropped).toBe(host.counters.recorded);
  expect(stored.byService).toBeGreaterThanOrEqual(host.counters.sent);
  expect({ rejected: host.counters.rejected, dropped: host.counters.dropped, unconfirmed: host.counters.unconfirmed }).toEqual({ rejected: 0, dropped: 0, unconfirmed: 0 });
  expect(stored.ofIds).toBe(host.ids.length);
}

/** Milliseconds from `since` to the first 202 answer of a request sent after it. */
function recoveredAfter(load: Load, since: number): number {
  return Math.min(...load.answers.filter((a) => a.startedAt > since && a.status === 202).map((a) => a.startedAt + a.ms)) - since;
}

describePgBouncer(() => ({ topology, apiKey }));
describeNetworkFaults(() => ({ topology, apiKey }));

describe('the primary lost under load', () => {
  it('loses no acknowledged event, answers 503 with Retry-After meanwhile and recovers within 30 s; the Node and Python SDKs lose nothing they count as sent', async () => {
    const old = await topology.leader();
    expect(old).not.toBeNull();
    const load = startLoad(topology.jtraceUrl, apiKey, { batch: 8, single: 8 });
    const hosts = [startNodeHost(topology.jtraceUrl, apiKey), startPythonHost(topology.jtraceUrl, apiKey)];
    await sleep(3_000);
    const killedAt = Date.now();
    topology.killNode(old!);
    const next = await waitFor('a new leader', async () => {
      const leader = await topology.leader();
      return leader !== null && leader.name !== old!.name ? leader : null;
    }, 60_000);
    const promotedMs = Date.now() - killedAt;
    // Ingestion is back once a request sent after the kill is answered 202.
    await waitFor('ingestion after the kill', async () => load.answers.some((a) => a.startedAt > killedAt && a.status === 202), 60_000);
    await sleep(3_000);
    await load.stop();
    const recoveredMs = recoveredAfter(load, killedAt);
    report('primary lost', load, { promotedMs, recoveredMs, newLeader: next.name });
    await expectGuarantees(load);
    expect(recoveredMs).toBeLessThan(30_000);
    for (const host of await Promise.all(hosts.map((h) => h.stop()))) await expectSdkGuarantees(host);
    // The lost node comes back as a replica of the new primary (pg_rewind), as after a repair.
    topology.startNode(old!);
    await waitFor('the lost node to stream again', async () => {
      const member = (await topology.members()).find((m) => m.name === old!.name);
      return member !== undefined && member.role !== 'leader' && ['running', 'streaming'].includes(member.state);
    }, 120_000);
  });

  it('a planned switchover under the same load keeps the same guarantees', async () => {
    const current = (await topology.leader())!;
    // Patroni switches over only to a healthy synchronous standby: wait until one is named.
    const candidate = await waitFor('a synchronous standby', async () => {
      const members = await topology.members();
      return topology.nodes.find((node) => members.some((m) => m.name === node.name && m.role === 'sync_standby' && ['running', 'streaming'].includes(m.state))) ?? null;
    }, 120_000);
    const load = startLoad(topology.jtraceUrl, apiKey, { batch: 8, single: 8 });
    await sleep(3_000);
    const startedAt = Date.now();
    topology.switchover(candidate);
    await waitFor('the candidate to lead', async () => (await topology.leader())?.name === candidate.name, 60_000);
    const switchedMs = Date.now() - startedAt;
    await waitFor('ingestion after the switchover', async () => load.answers.some((a) => a.startedAt > startedAt + switchedMs && a.status === 202), 60_000);
    await sleep(3_000);
    await load.stop();
    const recoveredMs = recoveredAfter(load, startedAt);
    report('switchover', load, { from: current.name, to: candidate.name, switchedMs, recoveredMs });
    await expectGuarantees(load);
    expect(recoveredMs).toBeLessThan(30_000);
  });
});

describe('a rolling restart of the jtrace instances under load', () => {
  it('stops each api,ingest instance with SIGTERM and starts it again, one at a time: nothing acknowledged is lost', async () => {
    const load = startLoad(topology.jtraceUrl, apiKey, { batch: 8, single: 8 });
    await sleep(2_000);
    const startedAt = Date.now();
    for (const instance of topology.instances.filter((i) => i.roles !== 'worker')) {
      const child = instance.process!;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      // A clean stop: in-flight requests finish, the process exits 0 within its drain time.
      expect(await exited).toBe(0);
      await topology.startInstance(instance);
      await sleep(2_000);
    }
    const restartMs = Date.now() - startedAt;
    await load.stop();
    report('rolling restart', load, { restartMs });
    await expectGuarantees(load);
  });
});
