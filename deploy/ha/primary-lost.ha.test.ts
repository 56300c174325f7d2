import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countStored, createProjectKey, startLoad, statusCounts } from './load.ts';
import { sleep, startTopology, waitFor, type Topology } from './topology.ts';

/**
 * Scenario 1 of docs/deployment.md: the primary's machine dies (Patroni and its postmaster killed
 * with SIGKILL) while 8 clients send batches and 8 send single events through HAProxy to two
 * `api,ingest` instances. Every event answered 202 is read back from the new primary; meanwhile
 * clients get 503 with Retry-After, never 500, never an answer slower than the request timeout;
 * ingestion is back within 30 s of the kill.
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

describe('the primary lost under load', () => {
  it('loses no acknowledged event, answers 503 with Retry-After meanwhile and recovers within 30 s', async () => {
    const old = await topology.leader();
    expect(old).not.toBeNull();
    const load = startLoad(topology.jtraceUrl, apiKey, { batch: 8, single: 8 });
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
    const recoveredMs = Math.min(...load.answers.filter((a) => a.startedAt > killedAt && a.status === 202).map((a) => a.startedAt + a.ms)) - killedAt;
    const counts = statusCounts(load.answers);
    console.log(JSON.stringify({ scenario: 'primary lost', promotedMs, recoveredMs, newLeader: next.name, counts, acknowledged: load.acknowledged.length, unanswered: load.unanswered.length, slowestMs: Math.max(...load.answers.map((a) => a.ms)) }));

    expect(load.unanswered).toEqual([]);
    expect(load.answers.filter((a) => a.status !== 202 && a.status !== 503)).toEqual([]);
    expect(load.answers.filter((a) => a.status === 503 && a.retryAfter === null)).toEqual([]);
    expect(Math.max(...load.answers.map((a) => a.ms))).toBeLessThan(REQUEST_TIMEOUT_MS);
    expect(recoveredMs).toBeLessThan(30_000);
    expect(await countStored(topology.primaryUrl, load.acknowledged)).toBe(load.acknowledged.length);
  });
});
