// Single-event benchmark (npm run bench:ingest-single). By default on Debian's PostgreSQL 15
// (/usr/lib/postgresql/15/bin, `apt-get install -y postgresql-15`) in a temporary cluster with its
// durable defaults (fsync on, synchronous_commit on); BENCH_PG=17 takes the embedded binaries.
// Two apps on the one database: one storing concurrent single events by group commit (the
// defaults), one storing each event in a transaction of its own (INGEST_COALESCE_MAX_EVENTS=0).
// In one run and interleaved, so that the machine's load weighs on every figure alike:
// POST /v1/events at 8 and 64 clients and 100-event batches at 8 clients, durable, then the same
// with fsync off (a second variant: what the commits' flushes cost). Prints a table with the
// single route's ratio to the batch route and replaces `## Single events` of docs/benchmarks.md.

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
import { DEBIAN_15_BIN, embeddedBinDir, startCluster, type ClusterSpec } from './pg-cluster.ts';
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
type Variant = 'durable' | 'fsync off';
interface Phase { name: string; variant: Variant; app: 'grouped' | 'alone'; mode: 'batch' | 'single'; clients: number }
const phasesOf = (variant: Variant): Phase[] => [
  ...(variant === 'durable' ? [{ name: 'single, one transaction each, 8 clients', variant, app: 'alone', mode: 'single', clients: 8 } as const] : []),
  { name: 'single, group commit, 8 clients', variant, app: 'grouped', mode: 'single', clients: 8 },
  { name: 'single, group commit, 64 clients', variant, app: 'grouped', mode: 'single', clients: 64 },
  { name: 'batch of 100, 8 clients', variant, app: 'alone', mode: 'batch', clients: 8 },
];
const VARIANTS: Variant[] = ['durable', 'fsync off'];
const PHASES = VARIANTS.flatMap(phasesOf);
const label = (p: Phase) => `${p.variant}: ${p.name}`;

/** fsync can change with a reload: the same cluster and data serve both variants. */
async function setFsync(pool: BenchPool, on: boolean): Promise<void> {
  await pool.query(`ALTER SYSTEM SET fsync = ${on ? 'on' : 'off'}`);
  await pool.query('SELECT pg_reload_conf()');
  for (let i = 0; i < 50; i++) {
    if ((await pool.query<{ fsync: string }>("SELECT current_setting('fsync') AS fsync")).rows[0]!.fsync === (on ? 'on' : 'off')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('fsync did not change');
}
type BenchPool = Awaited<ReturnType<typeof startBenchServer>>['pool'];

async function main(): Promise<void> {
  // The coalescing knobs may be set for a run (INGEST_COALESCE_MAX_WAIT_MS, INGEST_COALESCE_MAX_EVENTS).
  const base = loadConfig({ INGEST_COALESCE_MAX_WAIT_MS: process.env.INGEST_COALESCE_MAX_WAIT_MS, INGEST_COALESCE_MAX_EVENTS: process.env.INGEST_COALESCE_MAX_EVENTS });
  const spec: ClusterSpec = process.env.BENCH_PG === '17'
    ? { label: 'embedded PostgreSQL 17', binDir: await embeddedBinDir(), locale: 'C' }
    : { label: "Debian's PostgreSQL 15", binDir: DEBIAN_15_BIN, locale: 'C.UTF-8' };
  const cluster = await startCluster(spec);
  const server = await startBenchServer({}, cluster);
  // Two apps on the server's database, pool and key: group commit as configured, and switched off.
  const metrics = { grouped: createMetrics(server.pool), alone: createMetrics(server.pool) };
  const apps = { grouped: base, alone: { ...base, ingestCoalesceMaxEvents: 0 } };
  const urls = { grouped: '', alone: '' };
  const built: FastifyInstance[] = [];
  for (const name of ['grouped', 'alone'] as const) {
    const app = await buildApp({
      config: apps[name], pool: server.pool, keyring: server.keyring, adminToken: randomBytes(32).toString('base64url'),
      logger: pino({ level: 'silent' }), metrics: metrics[name], build: { version: '0.0.0', source: 'package' },
    });
    built.push(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    urls[name] = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }
  const groupTotals = async () => {
    const values = (await metrics.grouped.coalescedGroupEvents.get()).values;
    const of = (suffix: string) => values.find((v) => v.metricName === `service_ingest_coalesced_group_events${suffix}`)?.value ?? 0;
    return { groups: of('_count'), events: of('_sum') };
  };
  const settings = (await server.pool.query<{ s: string }>("SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) AS s FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes')")).rows[0]!.s;
  const loadBefore = os.loadavg()[0]!;
  const postmaster = await postmasterPid(server.pool);
  try {
    const results = new Map<string, Outcome[]>();
    // JTRACE_BENCH_ONLY=1,3 runs only those phases (0-based, of both variants in order) and leaves docs/benchmarks.md alone.
    const only = process.env.JTRACE_BENCH_ONLY?.split(',').map(Number);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const variant of VARIANTS) {
        const phases = PHASES.filter((p, i) => p.variant === variant && (only === undefined || only.includes(i)));
        if (phases.length === 0) continue;
        await setFsync(server.pool, variant === 'durable');
        for (const phase of phases) {
          console.log(`round ${round}/${ROUNDS}: ${label(phase)} ...`);
          const groupsBefore = await groupTotals();
          const cpuCount = startCpuCount(postmaster);
          const outcome = await runInChild<Job, Outcome>(import.meta.url, JOB_VARIABLE, {
            baseUrl: urls[phase.app], apiKey: server.apiKey, mode: phase.mode, clients: phase.clients,
            ms: PHASE_MS, warmupMs: WARMUP_MS, tag: `r${round}${phase.variant === 'durable' ? 'd' : 'f'}${phase.app}${phase.mode}${phase.clients}`,
          });
          const cpu = cpuCount.stop();
          const groupsAfter = await groupTotals();
          // Includes the warm-up: CPU per event over everything the phase sent.
          outcome.cpu = cpu;
          // Warm-up groups included: the mean events per shared transaction during the phase.
          outcome.meanGroup = phase.app === 'grouped' && phase.mode === 'single' ? (groupsAfter.events - groupsBefore.events) / Math.max(1, groupsAfter.groups - groupsBefore.groups) : null;
          results.set(label(phase), [...(results.get(label(phase)) ?? []), outcome]);
        }
      }
    }
    await setFsync(server.pool, true);
    const loadAfter = os.loadavg()[0]!;
    if (only !== undefined) {
      for (const [name, outcomes] of results) console.log(name, outcomes.map((o) => ({ rate: fmt(o.events / (o.elapsedMs / 1000)), p50: percentile(o.latencies, 50).toFixed(1), group: o.meanGroup?.toFixed(1), cpu: o.cpu })));
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
    const f = Object.fromEntries(PHASES.map((p) => [label(p), figure(label(p))]));
    const rows = PHASES.map((p) => {
      const x = f[label(p)]!;
      const batch = f[`${p.variant}: batch of 100, 8 clients`]!;
      return { phase: label(p), 'events/s': fmt(x.rate), 'to batch': (x.rate / batch.rate).toFixed(2), rounds: x.runs.map(fmt).join(', '), 'p50 ms': x.p50.toFixed(1), 'p99 ms': x.p99.toFixed(1), failed: x.failures, 'events per commit': x.meanGroup === null ? (p.mode === 'batch' ? '100' : '1') : x.meanGroup.toFixed(1), 'server CPU µs/event': x.serverUs.toFixed(0), 'PostgreSQL CPU µs/event': x.postgresUs === null ? '—' : x.postgresUs.toFixed(0) };
    });
    const ratio = (variant: Variant, clients: number) => f[`${variant}: single, group commit, ${clients} clients`]!.rate / f[`${variant}: batch of 100, 8 clients`]!.rate;
    const ratios = { durable8: ratio('durable', 8), durable64: ratio('durable', 64), fsyncOff8: ratio('fsync off', 8), fsyncOff64: ratio('fsync off', 64),
      speedup8: f['durable: single, group commit, 8 clients']!.rate / f['durable: single, one transaction each, 8 clients']!.rate };
    console.table(rows);
    console.log(ratios);
    console.log('recovery from a failing member: shared transaction then one by one, against savepoints ...');
    const environment = (await findEnvironment(server.pool, server.projectId, 'production'))!;
    const recovery = await measureRecovery(server.pool, server.keyring, server.projectId, environment);
    console.log(recovery);
    const machine = `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${spec.label} ${server.postgresVersion} (temporary cluster, default settings: ${settings})`;
    replaceDocsSection(DOCS, '## Single events', render({ maxWaitMs: base.ingestCoalesceMaxWaitMs, maxEvents: base.ingestCoalesceMaxEvents }, machine, rows, ratios, recovery, loadBefore, loadAfter, {
      single64: f['durable: single, group commit, 64 clients']!, single8: f['durable: single, group commit, 8 clients']!,
      batch: f['durable: batch of 100, 8 clients']!, alone8: f['durable: single, one transaction each, 8 clients']!,
    }));
    console.log(`wrote the Single events section of ${DOCS.pathname}`);
  } finally {
    for (const app of built) await app.close();
    await server.stop();
    await cluster.stop();
  }
}

function render(settings: { maxWaitMs: number; maxEvents: number }, machine: string, rows: Array<Record<string, string | number>>, r: Record<string, number>, recovery: RecoveryFigures, loadBefore: number, loadAfter: number, cpu: Record<'single64' | 'single8' | 'alone8' | 'batch', PhaseFigure>): string {
  const total = (x: PhaseFigure) => Math.round(x.serverUs + (x.postgresUs ?? 0));
  const us = (x: PhaseFigure) => `${x.serverUs.toFixed(0)} µs of server CPU and ${x.postgresUs === null ? '(not measured)' : `${x.postgresUs.toFixed(0)} µs`} of PostgreSQL CPU`;
  const met = (ok: boolean) => (ok ? 'met' : 'missed');
  return `## Single events

Measured on ${new Date().toISOString().slice(0, 10)} with \`npm run bench:ingest-single\` (bench/ingest-single.ts). Machine: ${machine}.
Load average (uptime) ${loadBefore.toFixed(1)} when the run began and ${loadAfter.toFixed(1)} when it ended (2 cores: above 2, other work competed).
Two apps on one database: one storing single events by group commit (\`INGEST_COALESCE_MAX_WAIT_MS=${settings.maxWaitMs}\`,
\`INGEST_COALESCE_MAX_EVENTS=${settings.maxEvents}\`), one with it off (each event in a transaction of its own). The durable
phases run with the cluster's defaults; the fsync-off phases, on the same cluster and data, after \`ALTER SYSTEM SET fsync = off\`.
The phases are interleaved, ${ROUNDS} rounds of ${PHASE_MS / 1000} s each (after ${WARMUP_MS / 1000} s of warm-up), from a load generator in a child
process over keep-alive connections; each single event starts a new journey or adds a step to one (the events of bench:ingest, about 1 KB).
"to batch" is the phase's events/s over the batch route's (100-event batches, 8 clients) in the same variant.

| Phase | events/s | to batch | per round | p50 ms | p99 ms | failed | events per commit | server CPU µs/event | PostgreSQL CPU µs/event |
|---|---:|---:|---|---:|---:|---:|---:|---:|---:|
${rows.map((x) => `| ${x.phase} | ${x['events/s']} | ${x['to batch']} | ${x.rounds} | ${x['p50 ms']} | ${x['p99 ms']} | ${x.failed} | ${x['events per commit']} | ${x['server CPU µs/event']} | ${x['PostgreSQL CPU µs/event']} |`).join('\n')}

- **Durable, 8 clients**: single events reach ${r.durable8!.toFixed(2)} of the batch route's rate (goal ≥ 0.2: ${met(r.durable8! >= 0.2)}), ${r.speedup8!.toFixed(1)}× the rate of one transaction per event.
- **Durable, 64 clients**: ${r.durable64!.toFixed(2)} of the batch route's rate (goal ≥ 0.5: ${met(r.durable64! >= 0.5)}).
- **fsync off**: ${r.fsyncOff8!.toFixed(2)} at 8 clients and ${r.fsyncOff64!.toFixed(2)} at 64.
- **CPU per event** (server and PostgreSQL together, read from /proc), which the machine's other work disturbs far less than the rates:
  group commit ${total(cpu.single8)} µs at 8 clients and ${total(cpu.single64)} µs at 64, against ${total(cpu.alone8)} µs one transaction each at 8 and ${total(cpu.batch)} µs
  per event of a batch: where the cores, not the waits between hops, are what runs out, the single route would reach
  ${(total(cpu.batch) / total(cpu.single8)).toFixed(2)} of the batch rate at 8 clients and ${(total(cpu.batch) / total(cpu.single64)).toFixed(2)} at 64. At 64 clients a single event cost ${us(cpu.single64)}, a batch event ${us(cpu.batch)}: what is
  left is one HTTP request per event on both sides and its API-key lookup, which concurrent requests share (docs/ingestion.md).
- **A failing member** (bench/coalesce-recovery.ts: groups of ${recovery.groupSize} prepared events stored directly, median of ${recovery.repetitions},
  interleaved; one member breaks a CHECK constraint): a shared transaction stores a healthy group in ${recovery.healthy[0].toFixed(1)} ms against
  ${recovery.healthy[1].toFixed(1)} ms with a savepoint and a storeEvents call per member; with a failing member, the failed shared transaction
  followed by each member on its own takes ${recovery.failing[0].toFixed(1)} ms against ${recovery.failing[1].toFixed(1)} ms for savepoints. Savepoints would make every
  group pay per member to save work only on a failing one, so a group keeps the shared transaction and stores one by one after a failure.
- **What a single event still pays**: its HTTP request, and a share of its group's transaction (BEGIN, the journeys'
  lock with the event lookup, the inserts, COMMIT: about five round trips to PostgreSQL) split over only the events that
  arrived during one group's statements (the next group starts as soon as they are done, while the COMMIT flushes): ${(cpu.single8.meanGroup ?? 1).toFixed(1)} at 8 clients, ${(cpu.single64.meanGroup ?? 1).toFixed(0)} at 64, where a batch splits them over 100. On this
  machine a round trip costs the server about as much CPU as a request (a CPU profile of the server at 64 clients
  shows the socket writes to PostgreSQL, \`writev\`, at 9 % of its time), so at 8 clients a single event costs
  ${(total(cpu.single8) / total(cpu.batch)).toFixed(1)}× a batch event's CPU. What would close more of it: the API key confirmed inside the group's transaction
  (as search confirms a verified key in its own statement, docs/decisions.md "Verified API keys") instead of a lookup
  statement, and BEGIN sent with the first statement.
- A load average above 2 on these 2 cores means the server, PostgreSQL and the load generator waited for CPU: every
  hop of a request then waits its turn, which weighs most on the route with the most hops per event. Rerun on a quiet
  machine for the figures of record.
`;
}

await main();
process.exit(0);
