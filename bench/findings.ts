// Findings benchmark (npm run bench:findings). On the ingestion benchmark's server and load
// (bench/ingest-load.ts: batches of 100 events, 8 clients, the load in a child process), measures
// the sustained batch rate without findings, with them as src/main.ts runs by default (computed
// by ingestion for journeys that come whole in a batch, the analyzer in the server's process for
// the rest) and with the analyzer alone computing them, alternating runs (the machine may be
// shared) and reporting medians, and the analyzer's lag while the load runs: the age of the
// oldest journey change not yet analysed, which is how long after ingestion a journey's findings
// can still be missing. Replaces the `## Findings` section of docs/benchmarks.md. It also counts
// the CPU the server process and PostgreSQL spend per event in each kind of run: a figure that
// hardly depends on what else the machine runs. FINDINGS_BENCH_BATCHES and FINDINGS_BENCH_RUNS
// change the load; FINDINGS_BENCH_ALONE=1 measures only the analyzer alone, RUNS times.

import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { startAnalyzer } from '../src/findings/analyzer.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { startBenchServer, type BenchServer } from './bench-server.ts';
import { BATCH_SIZE, inChild } from './ingest-load.ts';
import { replaceDocsSection } from './docs-section.ts';

const CLIENTS = 8;
const WARMUP_BATCHES = 20;
const BATCHES = Number(process.env.FINDINGS_BENCH_BATCHES ?? 150);
const RUNS = Number(process.env.FINDINGS_BENCH_RUNS ?? 3);
const LAG_SAMPLE_MS = 200;
const TARGET_LAG_S = 5;
const TARGET_SLOWDOWN = 0.1;
const DOCS = new URL('../docs/benchmarks.md', import.meta.url);
/** FINDINGS_BENCH_ALONE=1: only the analyzer alone, RUNS times, printed and not written to the docs. */
const ALONE_ONLY = process.env.FINDINGS_BENCH_ALONE === '1';

const f = (n: number, digits = 0) => n.toFixed(digits);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function lagSeconds(server: BenchServer): Promise<number> {
  const result = await server.pool.query<{ lag: number | null }>(
    'SELECT EXTRACT(EPOCH FROM (clock_timestamp() - min(pending_at)))::float8 AS lag FROM journey_findings_pending',
  );
  return Math.max(0, result.rows[0]?.lag ?? 0);
}

async function pending(server: BenchServer): Promise<number> {
  return (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journey_findings_pending')).rows[0]!.n;
}

/**
 * CPU milliseconds PostgreSQL has used so far (Linux /proc): the postmaster with every child it
 * reaped, plus its live children. The embedded server runs on this machine.
 */
async function postgresCpuMs(server: BenchServer): Promise<number> {
  const pids = (await server.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity')).rows.map((row) => row.pid);
  const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').map(Number);
  const postmaster = stat(pids[0]!)[1]!;
  const own = stat(postmaster);
  let ticks = own[11]! + own[12]! + own[13]! + own[14]!;
  for (const pid of pids) {
    try {
      const child = stat(pid);
      if (child[1] === postmaster) ticks += child[11]! + child[12]!;
    } catch {
      // Ended meanwhile: its time is in the postmaster's reaped children.
    }
  }
  return (ticks / 100) * 1000;
}

const nodeCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * One run of the load: `none` on the app that leaves findings to the analyzer, with no analyzer
 * (its marks are dropped before the next run); `ingest` on the app that computes the findings of
 * journeys coming whole (FINDINGS_AT_INGEST, the default), with the analyzer for the rest;
 * `analyzer` on the first app with the analyzer doing all of it.
 */
type Mode = 'none' | 'ingest' | 'analyzer';

async function run(server: BenchServer, mode: Mode, ingestUrl: string) {
  // Journeys left from the previous run are analysed first, off the clock.
  const analyzer = mode === 'none' ? null : startAnalyzer({ pool: server.pool, logger: pino({ level: 'silent' }), metrics: createMetrics() });
  if (analyzer) while ((await pending(server)) > 0) await analyzer.drain();
  else await server.pool.query('DELETE FROM journey_findings_pending');
  const lags: number[] = [];
  let sampling = analyzer !== null;
  const sampler = (async () => {
    while (sampling) {
      lags.push(await lagSeconds(server));
      await new Promise((resolve) => setTimeout(resolve, LAG_SAMPLE_MS));
    }
  })();
  const cpuBefore = { node: nodeCpuMs(), postgres: await postgresCpuMs(server) };
  const eluBefore = performance.eventLoopUtilization();
  const baseUrl = mode === 'ingest' ? ingestUrl : server.baseUrl;
  const load = await inChild({ baseUrl, apiKey: server.apiKey, mode: 'batch', clients: CLIENTS, warmup: WARMUP_BATCHES, count: BATCHES });
  const loadEnded = performance.now();
  const elu = performance.eventLoopUtilization(eluBefore).utilization;
  const leftToAnalyzer = analyzer ? await pending(server) : 0;
  let drainMs = 0;
  if (analyzer) {
    while ((await pending(server)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    drainMs = performance.now() - loadEnded;
  }
  const cpu = { node: nodeCpuMs() - cpuBefore.node, postgres: (await postgresCpuMs(server)) - cpuBefore.postgres };
  sampling = false;
  await sampler;
  await analyzer?.stop();
  if (load.failures > 0) throw new Error(`${load.failures} batches failed`);
  // CPU per event, from the start of the load until every journey of it is analysed (with the
  // analyzer): what ingestion, and the analyzer, cost whenever the work is done.
  const events = (load.done + WARMUP_BATCHES) * BATCH_SIZE;
  // Sustained: the load's events over the time until their findings are all stored. A run is a
  // burst; the analyzer's work left after it would, under a load that goes on, take cores from ingestion.
  const sustained = (load.done * BATCH_SIZE) / ((load.elapsedMs + drainMs) / 1000);
  return { eventsPerSecond: (load.done * BATCH_SIZE) / (load.elapsedMs / 1000), sustained, lags, drainMs, leftToAnalyzer, elu, nodeUsPerEvent: (cpu.node * 1000) / events, postgresUsPerEvent: (cpu.postgres * 1000) / events };
}

/**
 * The analyzer alone: a load ingested with no analyzer running, then analysed with no
 * ingestion meanwhile. How fast it can go, and its CPU per journey, without ingestion competing for the cores.
 */
async function alone(server: BenchServer) {
  const load = await inChild({ baseUrl: server.baseUrl, apiKey: server.apiKey, mode: 'batch', clients: CLIENTS, warmup: 0, count: BATCHES });
  if (load.failures > 0) throw new Error(`${load.failures} batches failed`);
  const journeys = await pending(server);
  const before = { node: nodeCpuMs(), postgres: await postgresCpuMs(server), at: performance.now() };
  const analyzer = startAnalyzer({ pool: server.pool, logger: pino({ level: 'silent' }), metrics: createMetrics(), idleMs: 3_600_000 });
  while ((await pending(server)) > 0) await analyzer.drain();
  const elapsedMs = performance.now() - before.at;
  await analyzer.stop();
  return {
    journeysPerSecond: journeys / (elapsedMs / 1000),
    nodeUsPerJourney: ((nodeCpuMs() - before.node) * 1000) / journeys,
    postgresUsPerJourney: (((await postgresCpuMs(server)) - before.postgres) * 1000) / journeys,
  };
}

async function main(): Promise<void> {
  const loadAtStart = os.loadavg()[0]!.toFixed(1);
  // The first app leaves every journey to the analyzer; the second computes at ingestion what it can.
  const server = await startBenchServer({ findingsAnalyzerEnabled: false, findingsAtIngest: false });
  try {
    if (ALONE_ONLY) {
      // Only the analyzer alone, RUNS times: its CPU per journey, compared across versions.
      for (let i = 0; i < RUNS; i++) {
        const solo = await alone(server);
        process.stdout.write(`analyzer alone ${i + 1}: ${f(solo.journeysPerSecond)} journeys/s, CPU per journey ${f(solo.nodeUsPerJourney)} + ${f(solo.postgresUsPerJourney)} µs (load average ${os.loadavg()[0]!.toFixed(1)})\n`);
      }
      return;
    }
    const { baseUrl: ingestUrl } = await server.startApp({ findingsAnalyzerEnabled: false, findingsAtIngest: true });
    const runs: Record<Mode, Array<Awaited<ReturnType<typeof run>>>> = { none: [], ingest: [], analyzer: [] };
    for (let i = 0; i < RUNS; i++) {
      for (const mode of ['none', 'ingest', 'analyzer'] as const) runs[mode].push(await run(server, mode, ingestUrl));
      const [a, b, c] = [runs.none.at(-1)!, runs.ingest.at(-1)!, runs.analyzer.at(-1)!];
      process.stdout.write(
        `run ${i + 1}: without ${Math.round(a.eventsPerSecond)} ev/s, with findings ${Math.round(b.eventsPerSecond)} ev/s (max lag ${Math.max(0, ...b.lags).toFixed(2)} s), ` +
          `analyzer only ${Math.round(c.eventsPerSecond)} ev/s (max lag ${Math.max(0, ...c.lags).toFixed(2)} s); CPU per event ${f(a.nodeUsPerEvent)} + ${f(a.postgresUsPerEvent)} / ` +
          `${f(b.nodeUsPerEvent)} + ${f(b.postgresUsPerEvent)} / ${f(c.nodeUsPerEvent)} + ${f(c.postgresUsPerEvent)} µs (server + PostgreSQL)\n`,
      );
    }
    const solo = await alone(server);
    process.stdout.write(`analyzer alone: ${f(solo.journeysPerSecond)} journeys/s, CPU per journey ${f(solo.nodeUsPerJourney)} + ${f(solo.postgresUsPerJourney)} µs\n`);
    const journeys = (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journeys')).rows[0]!.n;
    const findings = (await server.pool.query<{ n: number }>('SELECT COALESCE(sum(cardinality(kind)), 0)::int AS n FROM journey_findings')).rows[0]!.n;
    const rate = (mode: Mode) => median(runs[mode].map((r) => r.eventsPerSecond));
    const sustained = (mode: Mode) => median(runs[mode].map((r) => r.sustained));
    const cpu = (mode: Mode) => median(runs[mode].map((r) => r.nodeUsPerEvent + r.postgresUsPerEvent));
    const node = (mode: Mode) => median(runs[mode].map((r) => r.nodeUsPerEvent));
    const postgres = (mode: Mode) => median(runs[mode].map((r) => r.postgresUsPerEvent));
    const lost = (mode: Mode) => 1 - sustained(mode) / sustained('none');
    const burstLost = (mode: Mode) => 1 - rate(mode) / rate('none');
    const lagsOf = (mode: Mode) => runs[mode].flatMap((r) => r.lags).sort((a, b) => a - b);
    const lagCell = (mode: Mode) => {
      const sorted = lagsOf(mode);
      return `${f(percentile(sorted, 50), 2)} / ${f(percentile(sorted, 95), 2)} / ${f(sorted.at(-1) ?? 0, 2)} s`;
    };
    const maxLag = lagsOf('ingest').at(-1) ?? 0;
    const slowdown = lost('ingest');
    const load = os.loadavg().map((n) => n.toFixed(1)).join(' / ');
    const section = `## Findings

\`npm run bench:findings\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores shared, PostgreSQL ${server.postgresVersion}, embedded, fsync on;
load average ${loadAtStart} at the start, ${load} at the end).
The ingestion benchmark's load: ${CLIENTS} clients sending batches of ${BATCH_SIZE} events (25 journeys of four ~1 KB events),
${BATCHES} batches per run after ${WARMUP_BATCHES} to warm up, from a child process. Three kinds of run alternate, ${RUNS} of each;
medians reported. *Without findings*: the analyzer stopped, ingestion marking journeys for it as always (the marks are
dropped between runs). *With findings*: as \`src/main.ts\` runs by default, ingestion computing the findings of the journeys
whose events all come in its batch (\`FINDINGS_AT_INGEST\`, all of this load's) and the analyzer running in the server's
process for the rest. *Analyzer only*: \`FINDINGS_AT_INGEST=false\`, the analyzer doing all of it.
A run lasts a few seconds, a burst: the analyzer's work left when it ends is done after it, with the cores to
itself, where a load that goes on would have it take them from ingestion. The sustained rate counts that work: the
load's events over the time until the findings of all of them are stored; the target is read on it.

| Figure | Without findings | With findings | Analyzer only | Target |
|---|---|---|---|---|
| Batch rate during the load | ${f(rate('none'))} events/s | ${f(rate('ingest'))} events/s (−${f(burstLost('ingest') * 100, 1)} %) | ${f(rate('analyzer'))} events/s (−${f(burstLost('analyzer') * 100, 1)} %) | |
| Sustained rate: events over the time until their findings are stored | ${f(sustained('none'))} events/s | ${f(sustained('ingest'))} events/s | ${f(sustained('analyzer'))} events/s | |
| Sustained rate lost to findings | | ${f(slowdown * 100, 1)} % | ${f(lost('analyzer') * 100, 1)} % | at most ${f(TARGET_SLOWDOWN * 100)} % ${slowdown <= TARGET_SLOWDOWN ? '(met)' : '(not met)'} |
| Lag during the load, median / p95 / max | | ${lagCell('ingest')} | ${lagCell('analyzer')} | findings within ${TARGET_LAG_S} s ${maxLag <= TARGET_LAG_S ? '(met)' : '(not met)'} |
| Journeys left to the analyzer at the end of the load (median) | | ${f(median(runs.ingest.map((r) => r.leftToAnalyzer)))} | ${f(median(runs.analyzer.map((r) => r.leftToAnalyzer)))} | |
| Time from the end of the load to no journey pending (median) | | ${f(median(runs.ingest.map((r) => r.drainMs)))} ms | ${f(median(runs.analyzer.map((r) => r.drainMs)))} ms | |
| CPU per event, server + PostgreSQL | ${f(node('none'))} + ${f(postgres('none'))} µs | ${f(node('ingest'))} + ${f(postgres('ingest'))} µs (+${f((cpu('ingest') / cpu('none') - 1) * 100)} %) | ${f(node('analyzer'))} + ${f(postgres('analyzer'))} µs (+${f((cpu('analyzer') / cpu('none') - 1) * 100)} %) | |
| Server event loop busy during the load | ${f(median(runs.none.map((r) => r.elu)) * 100)} % | ${f(median(runs.ingest.map((r) => r.elu)) * 100)} % | ${f(median(runs.analyzer.map((r) => r.elu)) * 100)} % | |

The analyzer alone (the load ingested with no analyzer, then analysed with no ingestion meanwhile): ${f(solo.journeysPerSecond)} journeys
per second, ${f(solo.nodeUsPerJourney)} + ${f(solo.postgresUsPerJourney)} µs of CPU per journey (server + PostgreSQL): what a journey whose
events come in several batches costs, on top of its ingestion.

Lag is sampled every ${LAG_SAMPLE_MS} ms as \`service_findings_lag_seconds\` computes it: the age of the oldest journey
change the analyzer has not stored findings for, so the longest any journey waited for its findings (a journey whose
findings ingestion computed waits for none: they commit with its events).
CPU is counted from the start of each load (warm-up included) until its last journey is analysed: the server's process
(\`process.cpuUsage\`: ingestion, and the analyzer when it runs) and every PostgreSQL process (\`/proc\`, Linux), per event
ingested; the load generator's own CPU is not counted. Unlike the rates it hardly depends on what else the machine runs, and
it counts the analyzer's work whether done during the load or after it.
${journeys} journeys and ${findings} findings at the end (${f(findings / Math.max(1, journeys))} per journey: each step's output has
another shape than its input, so every input field reads as lost there; a worst case of findings to write,
stored as one row per journey).
`;
    process.stdout.write(`\n${section}`);
    replaceDocsSection(DOCS, '## Findings', section);
  } finally {
    await server.stop();
  }
}

await main();
