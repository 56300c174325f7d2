// Single-event benchmark (npm run bench:ingest-single). One embedded PostgreSQL (fsync on), two
// apps on it: one coalescing concurrent single events into shared transactions (the defaults),
// one storing each event in a transaction of its own (INGEST_COALESCE_MAX_WAIT_MS=0). In one run
// and interleaved, so that the machine's load weighs on every figure alike: POST /v1/events at
// 8 and 64 clients on both apps, and 100-event batches at 8 clients for the ratio. Prints a
// table and replaces the `## Single events` section of docs/benchmarks.md.

import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import os from 'node:os';
import pino from 'pino';
import { Pool as HttpPool } from 'undici';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { findEnvironment } from '../src/projects/environments-sql.ts';
import { measureRecovery, type RecoveryFigures } from './coalesce-recovery.ts';
import { postmasterPid, startCpuCount } from './process-cpu.ts';
import { runInChild, serveChildJob, startBenchServer } from './bench-server.ts';
import { replaceDocsSection } from './docs-section.ts';
import { BATCH_SIZE, makeBatch, makeEvent } from './ingest-load.ts';

const JOB_VARIABLE = 'JTRACE_BENCH_SINGLE_JOB';
const DOCS = new URL('../docs/benchmarks.md', import.meta.url);
/** Each timed phase lasts this long; phases are interleaved over ROUNDS rounds. */
const PHASE_MS = Number(process.env.JTRACE_BENCH_PHASE_MS ?? 8_000);
const WARMUP_MS = 1_500;
const ROUNDS = Number(process.env.JTRACE_BENCH_ROUNDS ?? 2);

interface Job { baseUrl: string; apiKey: string; mode: 'batch' | 'single'; clients: number; ms: number; warmupMs: number; tag: string }
interface Outcome { events: number; elapsedMs: number; failures: number; latencies: number[]; meanGroup?: number | null; cpu?: { serverMs: number; postgresMs: number | null } }

// ---- the load generator (a child process of this file) -----------------------------------------

async function runLoad(job: Job): Promise<Outcome> {
  const http = new HttpPool(job.baseUrl, { connections: job.clients, pipelining: 1, keepAliveTimeout: 30_000 });
  const path = job.mode === 'batch' ? '/v1/events/batch' : '/v1/events';
  let serial = 0;
  const payload = () => {
    const i = serial++;
    return JSON.stringify(job.mode === 'batch' ? { events: makeBatch(`${job.tag}b${i}`) } : makeEvent(`${job.tag}s`, i, i % 4));
  };
  const phase = async (ms: number, latencies: number[] | null) => {
    let events = 0;
    let failures = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: job.clients }, async () => {
      while (performance.now() - started < ms) {
        const body = payload();
        const t0 = performance.now();
        const response = await http.request({ path, method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${job.apiKey}` } });
        const text = await response.body.text();
        latencies?.push(performance.now() - t0);
        if (response.statusCode !== 202 || text.includes('"rejected"')) failures++;
        else events += job.mode === 'batch' ? BATCH_SIZE : 1;
      }
    }));
    return { events, failures, elapsedMs: performance.now() - started };
  };
  await phase(job.warmupMs, null);
  const latencies: number[] = [];
  const result = await phase(job.ms, latencies);
  await http.close();
  return { ...result, latencies };
}

if (await serveChildJob(JOB_VARIABLE, runLoad)) process.exit(0);

// ---- the measurements --------------------------------------------------------------------------

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface PhaseFigure { serverUs: number; postgresUs: number | null; meanGroup: number | null }
interface Phase { name: string; app: 'coalesced' | 'alone'; mode: 'batch' | 'single'; clients: number }
const PHASES: Phase[] = [
  { name: 'single, one transaction each, 8 clients', app: 'alone', mode: 'single', clients: 8 },
  { name: 'single, coalesced, 8 clients', app: 'coalesced', mode: 'single', clients: 8 },
  { name: 'single, one transaction each, 64 clients', app: 'alone', mode: 'single', clients: 64 },
  { name: 'single, coalesced, 64 clients', app: 'coalesced', mode: 'single', clients: 64 },
  { name: 'batch of 100, 8 clients', app: 'alone', mode: 'batch', clients: 8 },
];

async function main(): Promise<void> {
  // The coalescing knobs may be set for a run (INGEST_COALESCE_MAX_WAIT_MS, INGEST_COALESCE_MAX_EVENTS).
  const base = loadConfig({ INGEST_COALESCE_MAX_WAIT_MS: process.env.INGEST_COALESCE_MAX_WAIT_MS, INGEST_COALESCE_MAX_EVENTS: process.env.INGEST_COALESCE_MAX_EVENTS });
  const server = await startBenchServer();
  // Two apps on the server's database, pool and key: coalescing as configured, and switched off.
  const metrics = { coalesced: createMetrics(server.pool), alone: createMetrics(server.pool) };
  const apps = { coalesced: base, alone: { ...base, ingestCoalesceMaxWaitMs: 0 } };
  const urls = { coalesced: '', alone: '' };
  const built: FastifyInstance[] = [];
  for (const name of ['coalesced', 'alone'] as const) {
    const app = await buildApp({
      config: apps[name], pool: server.pool, keyring: server.keyring, adminToken: randomBytes(32).toString('base64url'),
      logger: pino({ level: 'silent' }), metrics: metrics[name], build: { version: '0.0.0', source: 'package' },
    });
    built.push(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    urls[name] = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }
  const groupTotals = async () => {
    const values = (await metrics.coalesced.coalescedGroupEvents.get()).values;
    const of = (suffix: string) => values.find((v) => v.metricName === `service_ingest_coalesced_group_events${suffix}`)?.value ?? 0;
    return { groups: of('_count'), events: of('_sum') };
  };
  const loadBefore = os.loadavg()[0]!;
  const postmaster = await postmasterPid(server.pool);
  try {
    const results = new Map<string, Outcome[]>();
    // JTRACE_BENCH_ONLY=1,3 runs only those phases (0-based) and leaves docs/benchmarks.md alone.
    const only = process.env.JTRACE_BENCH_ONLY?.split(',').map(Number);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const phase of PHASES.filter((_, i) => only === undefined || only.includes(i))) {
        console.log(`round ${round}/${ROUNDS}: ${phase.name} ...`);
        const groupsBefore = await groupTotals();
        const cpuCount = startCpuCount(postmaster);
        const outcome = await runInChild<Job, Outcome>(import.meta.url, JOB_VARIABLE, {
          baseUrl: urls[phase.app], apiKey: server.apiKey, mode: phase.mode, clients: phase.clients,
          ms: PHASE_MS, warmupMs: WARMUP_MS, tag: `r${round}${phase.app}${phase.mode}${phase.clients}`,
        });
        const cpu = cpuCount.stop();
        const groupsAfter = await groupTotals();
        // Includes the warm-up: CPU per event over everything the phase sent.
        outcome.cpu = cpu;
        // Warm-up groups included: the mean events per shared transaction during the phase.
        outcome.meanGroup = phase.app === 'coalesced' && phase.mode === 'single' ? (groupsAfter.events - groupsBefore.events) / Math.max(1, groupsAfter.groups - groupsBefore.groups) : null;
        results.set(phase.name, [...(results.get(phase.name) ?? []), outcome]);
      }
    }
    const loadAfter = os.loadavg()[0]!;
    if (only !== undefined) {
      for (const [name, outcomes] of results) console.log(name, outcomes.map((o) => ({ rate: fmt(o.events / (o.elapsedMs / 1000)), p50: percentile(o.latencies, 50).toFixed(1) })));
      return;
    }
    const figure = (name: string) => {
      const outcomes = results.get(name)!;
      const events = outcomes.reduce((n, o) => n + o.events, 0);
      const seconds = outcomes.reduce((n, o) => n + o.elapsedMs, 0) / 1000;
      const latencies = outcomes.flatMap((o) => o.latencies);
      // CPU per event: the phases' CPU over their events including the warm-up, estimated by the rate.
      const sentEvents = outcomes.reduce((n, o) => n + (o.events * (o.elapsedMs + WARMUP_MS)) / o.elapsedMs, 0);
      const serverUs = (outcomes.reduce((n, o) => n + o.cpu!.serverMs, 0) * 1000) / sentEvents;
      const postgresUs = outcomes.some((o) => o.cpu!.postgresMs === null) ? null : (outcomes.reduce((n, o) => n + o.cpu!.postgresMs!, 0) * 1000) / sentEvents;
      const groups = outcomes.map((o) => o.meanGroup).filter((g): g is number => typeof g === 'number');
      return { serverUs, postgresUs, meanGroup: groups.length > 0 ? groups.reduce((a, b) => a + b, 0) / groups.length : null, rate: events / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures: outcomes.reduce((n, o) => n + o.failures, 0), runs: outcomes.map((o) => o.events / (o.elapsedMs / 1000)) };
    };
    const f = Object.fromEntries(PHASES.map((p) => [p.name, figure(p.name)]));
    const batch = f['batch of 100, 8 clients']!;
    const rows = PHASES.map((p) => {
      const x = f[p.name]!;
      return { phase: p.name, 'events/s': fmt(x.rate), rounds: x.runs.map(fmt).join(', '), 'p50 ms': x.p50.toFixed(1), 'p99 ms': x.p99.toFixed(1), failed: x.failures, 'events per commit': x.meanGroup === null ? '1' : x.meanGroup.toFixed(1), 'server CPU µs/event': x.serverUs.toFixed(0), 'PostgreSQL CPU µs/event': x.postgresUs === null ? '—' : x.postgresUs.toFixed(0) };
    });
    const ratios = {
      speedup8: f['single, coalesced, 8 clients']!.rate / f['single, one transaction each, 8 clients']!.rate,
      speedup64: f['single, coalesced, 64 clients']!.rate / f['single, one transaction each, 64 clients']!.rate,
      toBatch64: f['single, coalesced, 64 clients']!.rate / batch.rate,
      toBatch8: f['single, coalesced, 8 clients']!.rate / batch.rate,
    };
    console.table(rows);
    console.log(ratios);
    console.log('recovery from a failing member: shared transaction then one by one, against savepoints ...');
    const environment = (await findEnvironment(server.pool, server.projectId, 'production'))!;
    const recovery = await measureRecovery(server.pool, server.keyring, server.projectId, environment);
    console.log(recovery);
    const machine = `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, PostgreSQL ${server.postgresVersion} (embedded, fsync on, default settings)`;
    replaceDocsSection(DOCS, '## Single events', render({ maxWaitMs: base.ingestCoalesceMaxWaitMs, maxEvents: base.ingestCoalesceMaxEvents }, machine, rows, ratios, recovery, loadBefore, loadAfter, {
      single64: f['single, coalesced, 64 clients']!, single8: f['single, coalesced, 8 clients']!, batch,
      alone64: f['single, one transaction each, 64 clients']!, alone8: f['single, one transaction each, 8 clients']!,
    }));
    console.log(`wrote the Single events section of ${DOCS.pathname}`);
  } finally {
    for (const app of built) await app.close();
    await server.stop();
  }
}

function render(settings: { maxWaitMs: number; maxEvents: number }, machine: string, rows: Array<Record<string, string | number>>, r: Record<string, number>, recovery: RecoveryFigures, loadBefore: number, loadAfter: number, cpu: Record<'single64' | 'single8' | 'alone64' | 'alone8' | 'batch', PhaseFigure>): string {
  const total = (x: PhaseFigure) => Math.round(x.serverUs + (x.postgresUs ?? 0));
  const us = (x: PhaseFigure) => `${x.serverUs.toFixed(0)} µs of server CPU and ${x.postgresUs === null ? '(not measured)' : `${x.postgresUs.toFixed(0)} µs`} of PostgreSQL CPU`;
  const met = (ok: boolean) => (ok ? 'met' : 'missed');
  return `## Single events

Measured on ${new Date().toISOString().slice(0, 10)} with \`npm run bench:ingest-single\` (bench/ingest-single.ts). Machine: ${machine}.
Load average ${loadBefore.toFixed(1)} when the run began and ${loadAfter.toFixed(1)} when it ended (2 cores: above 2, other work competed).
Two apps on one database: one coalescing (\`INGEST_COALESCE_MAX_WAIT_MS=${settings.maxWaitMs}\`,
\`INGEST_COALESCE_MAX_EVENTS=${settings.maxEvents}\`), one with it off (each event in a transaction of its own, as before).
The phases are interleaved, ${ROUNDS} rounds of ${PHASE_MS / 1000} s each (after ${WARMUP_MS / 1000} s of warm-up), from a load generator in a child
process over keep-alive connections; each single event starts a new journey (the events of bench:ingest, about 1 KB).

| Phase | events/s | per round | p50 ms | p99 ms | failed | events per commit | server CPU µs/event | PostgreSQL CPU µs/event |
|---|---:|---|---:|---:|---:|---:|---:|---:|
${rows.map((x) => `| ${x.phase} | ${x['events/s']} | ${x.rounds} | ${x['p50 ms']} | ${x['p99 ms']} | ${x.failed} | ${x['events per commit']} | ${x['server CPU µs/event']} | ${x['PostgreSQL CPU µs/event']} |`).join('\n')}

- **8 clients**: coalescing gives ${r.speedup8!.toFixed(1)}× the rate of one transaction per event (goal ≥ 3×: ${met(r.speedup8! >= 3)}); ${(r.toBatch8! * 100).toFixed(0)} % of the batch rate.
- **64 clients**: ${r.speedup64!.toFixed(1)}× the rate of one transaction per event, and ${r.toBatch64!.toFixed(2)} of the batch route's event rate (goal ≥ 0.5: ${met(r.toBatch64! >= 0.5)}).
- **CPU per event** (server and PostgreSQL together), which the machine's other work disturbs far less than the rates: coalesced
  ${total(cpu.single8)} against ${total(cpu.alone8)} µs one transaction each at 8 clients (${(total(cpu.alone8) / total(cpu.single8)).toFixed(1)}× less), ${total(cpu.single64)} against ${total(cpu.alone64)} µs at 64
  (${(total(cpu.alone64) / total(cpu.single64)).toFixed(1)}× less), ${total(cpu.batch)} µs per event of a batch. Where CPU is what runs out (2 cores, nothing else running),
  these are about the rates' ratios to expect.
- **A failing member** (bench/coalesce-recovery.ts: groups of ${recovery.groupSize} prepared events stored directly, median of ${recovery.repetitions},
  interleaved; one member breaks a CHECK constraint): a shared transaction stores a healthy group in ${recovery.healthy[0].toFixed(1)} ms against
  ${recovery.healthy[1].toFixed(1)} ms with a savepoint and a storeEvents call per member; with a failing member, the failed shared transaction
  followed by each member on its own takes ${recovery.failing[0].toFixed(1)} ms against ${recovery.failing[1].toFixed(1)} ms for savepoints. Savepoints would make every
  group pay per member to save work only on a failing one, so coalescing keeps the shared transaction and stores one by one after a failure.
- **Where the rest of the gap to the batch route is** (CPU read from /proc for the server process and PostgreSQL's processes):
  a coalesced single event at 64 clients cost ${us(cpu.single64)}, a batch event ${us(cpu.batch)}. A single
  event pays what a batch spreads over 100 events: one HTTP request on both sides (parse, hooks, answer), the API-key
  lookup (one statement per request) and a share of a transaction of about ten statements over ${(cpu.single64.meanGroup ?? 1).toFixed(0)} events at 64 clients
  (${(cpu.single8.meanGroup ?? 1).toFixed(1)} at 8, where the senders overlap less) instead of 100. Coalescing removes only the last part. What would
  close more of it: a per-process cache of verified API keys (a revoked key would then still be accepted for the cache's
  lifetime, where the interface spec answers a revoked key 401), and senders that batch: both SDKs queue events and send
  them through the batch route, up to 100 per request, so the single route serves hand-written clients.
- A load average above 2 on these 2 cores means the server, PostgreSQL and the load generator waited for CPU: every
  hop of a request (client, server, PostgreSQL for the key, PostgreSQL for the group, answer) then waits its turn, which
  weighs most on the route with the most hops per event. Rerun on a quiet machine for the figures of record.
`;
}

await main();
process.exit(0);
