// Scenario 7 of docs/deployment.md: network faults between a jtrace instance and PostgreSQL. An
// extra `api,ingest` instance reaches PgBouncer only through a fault relay (fault-relay.ts) and
// takes ingestion load directly, while the relay adds 200 ms of latency each way, then stalls as
// of 20 % packet loss, then resets every database connection mid-transaction. The instance answers
// 202 or 503 with Retry-After, never 500; every event answered 202 is stored; once the faults stop
// it answers 202 again without a restart.

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers/free-port.ts';
import { startFaultRelay, NO_FAULTS } from './fault-relay.ts';
import { countStored, startLoad, statusCounts, type Answer, type Load } from './load.ts';
import { ADMIN_TOKEN, ENCRYPTION_KEY, sleep, waitFor, type Topology } from './topology.ts';

const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function startInstanceOn(topology: Topology, databaseUrl: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: REPOSITORY,
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, ADMIN_TOKEN, ENCRYPTION_KEY, HOST: '127.0.0.1',
      PORT: String(port), LOG_LEVEL: 'warn', JTRACE_ROLES: 'api,ingest',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(path.join(topology.dir, `jtrace-faults-${port}.log`));
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  await waitFor(`jtrace on ${port}`, async () => (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) })).status === 200, 60_000);
  return { port, child };
}

/** For a failure's message: how many acknowledged events the primary lacks, by the phase their request began in. */
async function missingByPhase(topology: Topology, load: Load, marks: Record<string, number>): Promise<Record<string, number>> {
  const client = new pg.Client(topology.primaryUrl);
  await client.connect();
  try {
    const found = new Set((await client.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1)', [load.acknowledged])).rows.map((r) => r.id));
    const phases = Object.entries(marks).sort((a, b) => a[1] - b[1]);
    const missing: Record<string, number> = {};
    load.acknowledged.forEach((id, i) => {
      if (found.has(id)) return;
      const phase = phases.filter(([, at]) => at <= load.acknowledgedAt[i]!).pop()?.[0] ?? 'start';
      missing[phase] = (missing[phase] ?? 0) + 1;
    });
    return missing;
  } finally {
    await client.end();
  }
}

/**
 * For a failure's message: each running node's own count of the acknowledged events, role and
 * timeline, and the leader before and after. A count that differs between nodes, or a timeline
 * that moved, tells a failover that lost commits from a count taken on the wrong node.
 */
async function nodesReport(topology: Topology, ids: string[], leaderBefore: string | null): Promise<Record<string, unknown>> {
  const nodes: Record<string, unknown> = {};
  for (const node of topology.nodes.filter((n) => n.process !== null)) {
    const client = new pg.Client(topology.nodeUrl(node));
    client.on('error', () => {});
    try {
      await client.connect();
      const row = (await client.query<{ stored: number; recovery: boolean; timeline: number }>(
        'SELECT (SELECT count(*)::int FROM events WHERE id = ANY($1)) AS stored, pg_is_in_recovery() AS recovery, (SELECT timeline_id FROM pg_control_checkpoint()) AS timeline',
        [ids],
      )).rows[0]!;
      nodes[node.name] = row;
    } catch (error) {
      nodes[node.name] = { unreachable: (error as Error).message };
    } finally {
      await client.end().catch(() => {});
    }
  }
  return { leaderBefore, leaderAfter: (await topology.leader())?.name ?? null, members: await topology.members(), nodes };
}

const inWindow = (answers: Answer[], from: number, to: number) => answers.filter((a) => a.startedAt >= from && a.startedAt < to);

export function describeNetworkFaults(context: () => { topology: Topology; apiKey: string }): void {
  describe('network faults between jtrace and PostgreSQL', () => {
    it('under latency, loss and resets answers 202 or 503 with Retry-After, stores every 202 and recovers without a restart', async () => {
      const { topology, apiKey } = context();
      const bouncer = new URL(topology.bouncerUrl);
      const relay = await startFaultRelay(Number(bouncer.port));
      const viaRelay = new URL(topology.bouncerUrl);
      viaRelay.port = String(relay.port);
      const instance = await startInstanceOn(topology, viaRelay.toString());
      const leaderBefore = (await topology.leader())?.name ?? null;
      try {
        const load = startLoad(`http://127.0.0.1:${instance.port}`, apiKey, { batch: 4, single: 4 });
        const marks: Record<string, number> = { start: Date.now() };
        await sleep(2_000);
        marks.latency = Date.now();
        relay.set({ latencyMs: 200, loss: 0, lossStallMs: 0 });
        await sleep(8_000);
        marks.loss = Date.now();
        relay.set({ latencyMs: 0, loss: 0.2, lossStallMs: 400 });
        await sleep(8_000);
        relay.set(NO_FAULTS);
        marks.resets = Date.now();
        let cut = 0;
        for (let i = 0; i < 3; i++) {
          await sleep(1_000);
          cut += relay.resetAll();
        }
        marks.cleared = Date.now();
        // Recovered: a request sent after the last reset is answered 202, with no restart.
        await waitFor('a 202 after the faults', async () => load.answers.some((a) => a.startedAt > marks.cleared! && a.status === 202), 30_000);
        await sleep(4_000);
        await load.stop();
        const end = Date.now();
        const phase = (from: number, to: number) => {
          const answers = inWindow(load.answers, from, to);
          return { answers: answers.length, counts: statusCounts(answers), slowestMs: Math.max(0, ...answers.map((a) => a.ms)) };
        };
        console.log(JSON.stringify({
          scenario: 'network faults', acknowledged: load.acknowledged.length, connectionsCut: cut, relayedConnections: relay.stats.connections,
          before: phase(marks.start!, marks.latency!), latency200ms: phase(marks.latency!, marks.loss!), loss20pct: phase(marks.loss!, marks.resets!),
          resets: phase(marks.resets!, marks.cleared!), after: phase(marks.cleared!, end),
          recoveredMs: Math.min(...load.answers.filter((a) => a.startedAt > marks.cleared! && a.status === 202).map((a) => a.startedAt + a.ms)) - marks.cleared!,
        }));
        // The answers came from this instance, alive throughout (a crash would free its port).
        expect(instance.child.exitCode).toBeNull();
        expect(cut).toBeGreaterThan(0);
        expect(load.unanswered).toEqual([]);
        expect(load.answers.filter((a) => a.status !== 202 && a.status !== 503)).toEqual([]);
        expect(load.answers.filter((a) => a.status === 503 && a.retryAfter === null)).toEqual([]);
        expect(Math.max(...load.answers.map((a) => a.ms))).toBeLessThan(30_000);
        const stored = await countStored(topology.primaryUrl, load.acknowledged);
        if (stored !== load.acknowledged.length) {
          console.log(JSON.stringify({ missingOfPhase: await missingByPhase(topology, load, marks), ...(await nodesReport(topology, load.acknowledged, leaderBefore)) }));
        }
        expect(stored).toBe(load.acknowledged.length);
        // Latency and loss slow answers down but fail none of them.
        expect(inWindow(load.answers, marks.latency!, marks.resets!).filter((a) => a.status !== 202)).toEqual([]);
        // Two seconds after the last reset, every request is accepted again.
        expect(inWindow(load.answers, marks.cleared! + 2_000, end).filter((a) => a.status !== 202)).toEqual([]);
      } finally {
        instance.child.kill('SIGKILL');
        await relay.close();
      }
    });
  });
}
