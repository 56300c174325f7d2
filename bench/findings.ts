// Findings benchmark (npm run bench:findings). On the ingestion benchmark's server and load
// (bench/ingest-load.ts: batches of 100 events, 8 clients, the load in a child process), measures
// the batch rate without the analyzer and with it running in the server's process as main.ts
// runs it, alternating runs (the machine may be shared) and reporting medians; the sustained
// rate, which counts the analyzer's work left when a run ends; and the analyzer's lag while the
// load runs: the age of the oldest journey change not yet analysed, which is how long after
// ingestion a journey's findings can still be missing. Replaces the `## Findings` section of
// docs/benchmarks.md. It also counts the CPU the server process and PostgreSQL spend per event,
// with and without the analyzer: a figure that hardly depends on what else the machine runs.
// FINDINGS_BENCH_BATCHES and FINDINGS_BENCH_RUNS change the load; FINDINGS_BENCH_ALONE=1
// measures only the analyzer alone, RUNS times; FINDINGS_BENCH_FED=1 runs "a journey fed
// continuously" instead (bench/findings-fed.ts).

import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { startAnalyzer } from '../src/findings/analyzer.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { startBenchServer, type BenchServer } from './bench-server.ts';
import { BATCH_SIZE, inChild, type BatchShape } from './ingest-load.ts';
import { replaceDocsSection } from './docs-section.ts';
import { fedJourney } from './findings-fed.ts';

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
/** FINDINGS_BENCH_SHAPE=carried: journeys whose steps lose nothing (bench/ingest-load.ts), in a section of their own. */
const SHAPE: BatchShape = process.env.FINDINGS_BENCH_SHAPE === 'carried' ? 'carried' : 'steps';
const HEADING = SHAPE === 'carried' ? '## Findings: a load whose steps lose nothing' : '## Findings';

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

/** One run of the load, with no analyzer (its marks are dropped before the next run) or with it. */
type Mode = 'none' | 'analyzer';

async function run(server: BenchServer, mode: Mode) {
  // Journeys left from the previous run are analysed first, off the clock.
  const analyzer = mode === 'none' ? null : startAnalyzer({ pool: server.pool, keyring: server.keyring, logger: pino({ level: 'silent' }), metrics: createMetrics() });
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
  const load = await inChild({ baseUrl: server.baseUrl, apiKey: server.apiKey, mode: 'batch', clients: CLIENTS, warmup: WARMUP_BATCHES, count: BATCHES, shape: SHAPE });
  const loadEnded = performance.now();
  const elu = performance.eventLoopUtilization(eluBefore).utilization;
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
  return { eventsPerSecond: (load.done * BATCH_SIZE) / (load.elapsedMs / 1000), sustained, lags, drainMs, elu, nodeUsPerEvent: (cpu.node * 1000) / events, postgresUsPerEvent: (cpu.postgres * 1000) / events };
}

/**
 * The analyzer alone: a load ingested with no analyzer running, then analysed with no
 * ingestion meanwhile. How fast it can go, and its CPU per journey, without ingestion competing for the cores.
 */
async function alone(server: BenchServer) {
  const load = await inChild({ baseUrl: server.baseUrl, apiKey: server.apiKey, mode: 'batch', clients: CLIENTS, warmup: 0, count: BATCHES, shape: SHAPE });
  if (load.failures > 0) throw new Error(`${load.failures} batches failed`);
  const journeys = await pending(server);
  const before = { node: nodeCpuMs(), postgres: await postgresCpuMs(server), at: performance.now() };
  const analyzer = startAnalyzer({ pool: server.pool, keyring: server.keyring, logger: pino({ level: 'silent' }), metrics: createMetrics(), idleMs: 3_600_000 });
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
  const server = await startBenchServer({ findingsAnalyzerEnabled: false });
  try {
    if (process.env.FINDINGS_BENCH_FED === '1') {
      // A journey fed continuously (bench/findings-fed.ts): printed, not written to the docs.
      await fedJourney(server);
      return;
    }
    if (ALONE_ONLY) {
      // Only the analyzer alone, RUNS times: its CPU per journey, compared across versions.
      for (let i = 0; i < RUNS; i++) {
        const solo = await alone(server);
        process.stdout.write(`analyzer alone ${i + 1}: ${f(solo.journeysPerSecond)} journeys/s, CPU per journey ${f(solo.nodeUsPerJourney)} + ${f(solo.postgresUsPerJourney)} µs (load average ${os.loadavg()[0]!.toFixed(1)})\n`);
      }
      return;
    }
    const runs: Record<Mode, Array<Awaited<ReturnType<typeof run>>>> = { none: [], analyzer: [] };
    for (let i = 0; i < RUNS; i++) {
      for (const mode of ['none', 'analyzer'] as const) runs[mode].push(await run(server, mode));
      const [a, b] = [runs.none.at(-1)!, runs.analyzer.at(-1)!];
      process.stdout.write(
        `run ${i + 1}: without ${Math.round(a.eventsPerSecond)} ev/s, with ${Math.round(b.eventsPerSecond)} ev/s (sustained ${Math.round(b.sustained)}), ` +
          `max lag ${Math.max(0, ...b.lags).toFixed(2)} s; CPU per event ${f(a.nodeUsPerEvent)} + ${f(a.postgresUsPerEvent)} / ` +
          `${f(b.nodeUsPerEvent)} + ${f(b.postgresUsPerEvent)} µs (server + PostgreSQL), event loop ${f(a.elu * 100)} % / ${f(b.elu * 100)} %\n`,
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
    const maxLag = lagsOf('analyzer').at(-1) ?? 0;
    const slowdown = lost('analyzer');
    const load = os.loadavg().map((n) => n.toFixed(1)).join(' / ');
    const section = `${HEADING}

\`npm run bench:findings\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores shared, PostgreSQL ${server.postgresVersion}, embedded, fsync on;
load average ${loadAtStart} at the start, ${load} at the end).
${SHAPE === 'carried' ? '`FINDINGS_BENCH_SHAPE=carried`: the ingestion benchmark\'s load with steps that pass their input on' : 'The ingestion benchmark\'s load'}: ${CLIENTS} clients sending batches of ${BATCH_SIZE} events (25 journeys of four ~1 KB events),
${BATCHES} batches per run after ${WARMUP_BATCHES} to warm up, from a child process. Runs without and with the analyzer
alternate, ${RUNS} of each; medians reported. Without it, ingestion still marks journeys for it, as always (the marks
are dropped between runs); with it, it runs in the server's process as \`src/main.ts\` runs it. A run lasts a few
seconds, a burst: the analyzer's work left when it ends is done after it, with the cores to itself, where a load that
goes on would have it take them from ingestion. The sustained rate counts that work: the load's events over the time
until the findings of all of them are stored; the target is read on it.

| Figure | Without the analyzer | With the analyzer | Target |
|---|---|---|---|
| Batch rate during the load | ${f(rate('none'))} events/s | ${f(rate('analyzer'))} events/s (−${f(burstLost('analyzer') * 100, 1)} %) | |
| Sustained rate: events over the time until their findings are stored | ${f(sustained('none'))} events/s | ${f(sustained('analyzer'))} events/s | |
| Sustained rate lost to the analyzer | | ${f(slowdown * 100, 1)} % | at most ${f(TARGET_SLOWDOWN * 100)} % ${slowdown <= TARGET_SLOWDOWN ? '(met)' : '(not met)'} |
| Lag during the load, median / p95 / max | | ${lagCell('analyzer')} | findings within ${TARGET_LAG_S} s ${maxLag <= TARGET_LAG_S ? '(met)' : '(not met)'} |
| Time from the end of the load to no journey pending (median) | | ${f(median(runs.analyzer.map((r) => r.drainMs)))} ms | |
| CPU per event, server + PostgreSQL | ${f(node('none'))} + ${f(postgres('none'))} µs | ${f(node('analyzer'))} + ${f(postgres('analyzer'))} µs (+${f((cpu('analyzer') / cpu('none') - 1) * 100)} %) | |
| Server event loop busy during the load | ${f(median(runs.none.map((r) => r.elu)) * 100)} % | ${f(median(runs.analyzer.map((r) => r.elu)) * 100)} % | |

The analyzer alone (the load ingested with no analyzer, then analysed with no ingestion meanwhile): ${f(solo.journeysPerSecond)} journeys
per second, ${f(solo.nodeUsPerJourney)} + ${f(solo.postgresUsPerJourney)} µs of CPU per journey (server + PostgreSQL).

Lag is sampled every ${LAG_SAMPLE_MS} ms as \`service_findings_lag_seconds\` computes it: the age of the oldest journey
change the analyzer has not stored findings for, so the longest any journey waited for its findings.
CPU is counted from the start of each load (warm-up included) until its last journey is analysed: the server's process
(\`process.cpuUsage\`: ingestion, and the analyzer when it runs) and every PostgreSQL process (\`/proc\`, Linux), per event
ingested; the load generator's own CPU is not counted. Unlike the rates it hardly depends on what else the machine runs, and
it counts the analyzer's work whether done during the load or after it.
${journeys} journeys and ${findings} findings at the end (${f(findings / Math.max(1, journeys))} per journey: ${SHAPE === 'carried'
  ? 'each step passes its input on with a status of its own, which changes from step to step; nothing is lost'
  : "each step's output has another shape than its input, so every input field reads as lost there; a worst case of findings to write"},
stored as one row per journey).
`;
    process.stdout.write(`\n${section}`);
    replaceDocsSection(DOCS, HEADING, section);
  } finally {
    await server.stop();
  }
}

await main();
