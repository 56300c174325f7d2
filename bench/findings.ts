// Findings benchmark (npm run bench:findings): what the findings analyzer costs ingestion and
// reads, on a durable database. Starts Debian's PostgreSQL 15 with its default settings (fsync
// and synchronous commit on; FINDINGS_BENCH_PG=17 takes the embedded one) and runs the real
// server (src/main.ts) in three ways, each on a fresh database: the analyzer off
// (FINDINGS_ANALYZER_ENABLED=false), on in the same process, and in a worker instance of its own
// (`JTRACE_ROLES=api,ingest` beside `JTRACE_ROLES=worker`). Each run, from a child process:
//   1. half the maximum rate for HALF_S seconds, sampling the findings lag (findings within 5 s);
//   2. a burst at the maximum rate for BURST_S seconds (8 clients, batches of 100 events);
//   3. right after it, 200 sequential reads, the journey list and search in turn (p95 of each);
//   4. the time from the burst's end until every finding is stored (within 60 s).
// All of it twice: on a quiet machine, and with two busy loops holding the cores. Then the quiet
// off/on pair again with fsync off, as a second row. Prints the figures and replaces the
// `## Findings` section of docs/benchmarks.md.
// FINDINGS_BENCH_BURST_S, FINDINGS_BENCH_HALF_S, FINDINGS_BENCH_CONDITIONS (quiet,busy),
// FINDINGS_BENCH_MODES (off,on,worker), FINDINGS_BENCH_FSYNC_OFF=0 shorten it.
// FINDINGS_BENCH_FED=1 runs "a journey fed continuously" instead (bench/findings-fed.ts) and
// replaces the `## Findings: a journey fed continuously` section.

import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { createApiKey } from '../src/auth/api-key-service.ts';
import { createKeyring } from '../src/crypto/keyring.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { createProject } from '../src/projects/projects-sql.ts';
import { TEST_ENCRYPTION_KEY } from '../test/helpers/app.ts';
import { freePort } from '../test/helpers/free-port.ts';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.ts';
import { startBenchServer } from './bench-server.ts';
import { replaceDocsSection } from './docs-section.ts';
import { fedJourney } from './findings-fed.ts';
import { BATCH_SIZE, EVENTS_SINCE, inChild, type LoadResult } from './ingest-load.ts';
import { DEBIAN_15_BIN, embeddedBinDir, startCluster, type Cluster } from './pg-cluster.ts';

const CLIENTS = 8;
const READS = 200;
const BURST_S = Number(process.env.FINDINGS_BENCH_BURST_S ?? 60);
const HALF_S = Number(process.env.FINDINGS_BENCH_HALF_S ?? 30);
const CONDITIONS = (process.env.FINDINGS_BENCH_CONDITIONS ?? 'quiet,busy').split(',') as Condition[];
const MODES = (process.env.FINDINGS_BENCH_MODES ?? 'off,on,worker').split(',') as Mode[];
const FSYNC_OFF_ROW = process.env.FINDINGS_BENCH_FSYNC_OFF !== '0';
/**
 * Each sample reads service_findings_lag_seconds, a scan of the pending marks that the analyzer's
 * pacer sees as load: once a second, not more, so the measure disturbs what it measures little.
 */
const LAG_SAMPLE_MS = 1_000;
const CATCH_UP_LIMIT_MS = 180_000;
const GOALS = { rate: 0.9, reads: 1.2, halfRateLagS: 5, catchUpS: 60 };
const DOCS = new URL('../docs/benchmarks.md', import.meta.url);
const HEADING = '## Findings';

type Mode = 'off' | 'on' | 'worker';
type Condition = 'quiet' | 'busy';
const MODE_LABEL: Record<Mode, string> = { off: 'analyzer off', on: 'analyzer on, same process', worker: 'analyzer in a worker instance' };

const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const p95 = (values: number[]) => {
  const sorted = values.filter((v) => v !== undefined).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.95 * sorted.length))] ?? NaN;
};
const eventRate = (load: LoadResult) => (load.done * BATCH_SIZE) / (load.elapsedMs / 1000);

interface RunFigures {
  mode: Mode;
  burstRate: number;
  listP95: number;
  searchP95: number;
  halfRateMaxLagS: number;
  catchUpS: number;
  failures: number;
}

/** Two processes spinning on the cores for the busy condition; killed by the returned function. */
function busyLoops(): () => void {
  const loops: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => loops.forEach((loop) => loop.kill('SIGKILL'));
}

async function lagSeconds(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const match = /^service_findings_lag_seconds (\S+)$/m.exec(text);
  return match ? Number(match[1]) : NaN;
}

interface Deployment {
  baseUrl: string;
  apiKey: string;
  metricsUrl: string;
  stop(): Promise<void>;
}

/** A fresh database on the cluster, migrated, with a project and a key, and the server processes of the mode. */
async function deploy(cluster: Cluster, name: string, mode: Mode): Promise<Deployment> {
  const admin = new pg.Client(cluster.url);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  const pool = createPool({ connectionString: url.toString(), max: 2, statementTimeoutMs: 60_000, applicationName: 'jtrace-bench' });
  await migrate(pool);
  await createProject(pool, 'bench', 'Benchmark');
  const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
  const { apiKey } = await createApiKey(pool, keyring, { projectSlug: 'bench', environmentName: 'production', name: 'bench', defaultRetentionDays: 30 });
  await pool.end();
  const metricsPort = await freePort();
  const common = { DATABASE_URL: url.toString(), LOG_LEVEL: 'error', METRICS_HOST: '127.0.0.1', METRICS_PORT: String(metricsPort) };
  const processes: ServerProcess[] = [];
  if (mode === 'worker') {
    processes.push(await startServerProcess({ ...common, JTRACE_ROLES: 'api,ingest' }));
    processes.push(await startServerProcess({ ...common, JTRACE_ROLES: 'worker', METRICS_PORT: String(await freePort()) }));
  } else {
    processes.push(await startServerProcess({ ...common, FINDINGS_ANALYZER_ENABLED: String(mode === 'on') }));
  }
  return {
    baseUrl: processes[0]!.baseUrl,
    apiKey,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    async stop() {
      for (const process of processes) {
        process.child.kill('SIGTERM');
        await new Promise((resolve) => (process.child.exitCode !== null ? resolve(null) : process.child.once('exit', resolve)));
      }
    },
  };
}

/** Runs `work` while sampling the lag; returns its result and the largest lag seen. */
async function sampled<T>(metricsUrl: string, work: Promise<T>): Promise<{ result: T; maxLagS: number }> {
  let sampling = true;
  let maxLagS = 0;
  const sampler = (async () => {
    while (sampling) {
      maxLagS = Math.max(maxLagS, await lagSeconds(metricsUrl));
      await sleep(LAG_SAMPLE_MS);
    }
  })();
  try {
    return { result: await work, maxLagS };
  } finally {
    sampling = false;
    await sampler;
  }
}

async function run(cluster: Cluster, name: string, mode: Mode, maxRate: number | null): Promise<RunFigures> {
  const deployment = await deploy(cluster, name, mode);
  try {
    const job = { baseUrl: deployment.baseUrl, apiKey: deployment.apiKey, mode: 'batch' as const, clients: CLIENTS, warmup: 20, count: 0 };
    let halfRateMaxLagS = NaN;
    let failures = 0;
    if (maxRate !== null && mode !== 'off') {
      const half = await sampled(deployment.metricsUrl, inChild({ ...job, durationMs: HALF_S * 1000, eventsPerSecond: maxRate / 2 }));
      halfRateMaxLagS = half.maxLagS;
      failures += half.result.failures;
      // The half-rate phase's findings are stored before the burst starts.
      while ((await lagSeconds(deployment.metricsUrl)) > 0) await sleep(LAG_SAMPLE_MS);
    }
    const burst = await inChild({ ...job, durationMs: BURST_S * 1000 });
    const burstEnded = performance.now();
    failures += burst.failures;
    const since = EVENTS_SINCE;
    const reads = Array.from({ length: 25 }, (_, j) => [`/v1/journeys?since=${since}`, `/v1/search?q=${encodeURIComponent(`buyer${j}@example.com`)}&since=${since}`]).flat();
    const readLoad = await inChild({ ...job, mode: 'reads', clients: 1, warmup: 0, count: READS, reads });
    failures += readLoad.failures;
    let catchUpS = 0;
    if (mode !== 'off') {
      while ((await lagSeconds(deployment.metricsUrl)) > 0 && performance.now() - burstEnded < CATCH_UP_LIMIT_MS) await sleep(LAG_SAMPLE_MS);
      catchUpS = (performance.now() - burstEnded) / 1000;
    }
    return {
      mode,
      burstRate: eventRate(burst),
      listP95: p95(readLoad.latencies.filter((_, i) => i % 2 === 0)),
      searchP95: p95(readLoad.latencies.filter((_, i) => i % 2 === 1)),
      halfRateMaxLagS,
      catchUpS,
      failures,
    };
  } finally {
    await deployment.stop();
  }
}

async function condition(cluster: Cluster, label: string, busy: boolean, modes: Mode[]): Promise<RunFigures[]> {
  const stopBusy = busy ? busyLoops() : () => undefined;
  try {
    const figures: RunFigures[] = [];
    let maxRate: number | null = null;
    for (const mode of modes) {
      const name = `jtrace_findings_${label.replace(/\W+/g, '_')}_${mode}`;
      const result = await run(cluster, name, mode, maxRate);
      maxRate ??= result.burstRate;
      figures.push(result);
      process.stdout.write(`${label}, ${MODE_LABEL[mode]}: ${f(result.burstRate)} events/s, list p95 ${f(result.listP95, 1)} ms, search p95 ${f(result.searchP95, 1)} ms, ` +
        `half-rate lag max ${f(result.halfRateMaxLagS, 2)} s, caught up ${f(result.catchUpS, 1)} s after the burst${result.failures ? `, ${result.failures} failures` : ''} (load ${os.loadavg()[0]!.toFixed(1)})\n`);
    }
    return figures;
  } finally {
    stopBusy();
  }
}

function table(label: string, figures: RunFigures[]): string {
  const off = figures.find((r) => r.mode === 'off');
  const ratio = (value: number, base: number | undefined) => (base ? ` (${f(value / base, 2)}×)` : '');
  const rows = figures.map((r) => {
    const rateOk = r.mode === 'off' || !off ? '' : r.burstRate / off.burstRate >= GOALS.rate ? ' ✓' : ' ✗';
    const readsOk = r.mode === 'off' || !off ? '' : r.listP95 <= GOALS.reads * off.listP95 && r.searchP95 <= GOALS.reads * off.searchP95 ? ' ✓' : ' ✗';
    const lagOk = r.mode === 'off' ? '' : r.halfRateMaxLagS <= GOALS.halfRateLagS ? ' ✓' : ' ✗';
    const catchUpOk = r.mode === 'off' ? '' : r.catchUpS <= GOALS.catchUpS ? ' ✓' : ' ✗';
    return `| ${label} | ${MODE_LABEL[r.mode]} | ${f(r.burstRate)}${ratio(r.burstRate, off?.burstRate)}${rateOk} | ${f(r.listP95, 1)}${ratio(r.listP95, off?.listP95)} / ` +
      `${f(r.searchP95, 1)}${ratio(r.searchP95, off?.searchP95)}${readsOk} | ${r.mode === 'off' ? '' : `${f(r.halfRateMaxLagS, 2)} s${lagOk}`} | ${r.mode === 'off' ? '' : `${f(r.catchUpS, 1)} s${catchUpOk}`} |`;
  });
  return rows.join('\n');
}

async function startDatabase(settings: string[]): Promise<Cluster> {
  if (process.env.FINDINGS_BENCH_PG === '17') return startCluster({ label: 'embedded PostgreSQL 17', binDir: await embeddedBinDir(), locale: 'C', settings });
  return startCluster({ label: 'Debian PostgreSQL 15', binDir: DEBIAN_15_BIN, locale: 'C.UTF-8', settings });
}

async function fed(): Promise<void> {
  const loadAtStart = os.loadavg().map((n) => n.toFixed(1)).join(' / ');
  const cluster = await startDatabase([]);
  const server = await startBenchServer({ findingsAnalyzerEnabled: false }, cluster);
  try {
    const rows = await fedJourney(server);
    const heading = '## Findings: a journey fed continuously';
    const section = `${heading}

\`FINDINGS_BENCH_FED=1 npm run bench:findings\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores shared, ${cluster.label}, default settings;
load average ${loadAtStart} at the start, ${os.loadavg().map((n) => n.toFixed(1)).join(' / ')} at the end). One journey grown to many events
and walked once, then fed batches of 100 events by one key while the analyzer runs in the server's process; meanwhile, every
second, a journey of another project that loses a field, timed from its batch's answer to its finding stored. Lag sampled every
200 ms as \`service_findings_lag_seconds\` computes it.

| Figure | Measured | Goal |
|---|---|---|
${rows}
`;
    process.stdout.write(`\n${section}`);
    replaceDocsSection(DOCS, heading, section);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  if (process.env.FINDINGS_BENCH_FED === '1') return fed();
  const loadAtStart = os.loadavg().map((n) => n.toFixed(1)).join(' / ');
  const rows: string[] = [];
  let clusterLabel = '';
  const durable = await startDatabase([]);
  clusterLabel = durable.label;
  try {
    for (const name of CONDITIONS) rows.push(table(name === 'busy' ? 'busy (two busy loops)' : 'quiet', await condition(durable, name, name === 'busy', MODES)));
  } finally {
    await durable.stop();
  }
  if (FSYNC_OFF_ROW) {
    const unflushed = await startDatabase(['fsync=off']);
    try {
      rows.push(table('quiet, fsync off', await condition(unflushed, 'quiet fsync off', false, MODES.filter((mode) => mode !== 'worker'))));
    } finally {
      await unflushed.stop();
    }
  }
  const section = `${HEADING}

\`npm run bench:findings\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores shared, ${clusterLabel} with its default settings:
fsync and synchronous commit on, except the last row; load average ${loadAtStart} at the start,
${os.loadavg().map((n) => n.toFixed(1)).join(' / ')} at the end). The real server (\`src/main.ts\`), on a fresh database per run, under
${CLIENTS} clients sending batches of ${BATCH_SIZE} events of new journeys (25 journeys of four ~1 KB steps, each step's
output another shape than its input: 35 findings per journey, the worst case to store), from a child process:
half the maximum rate for ${HALF_S} s (the largest findings lag seen, sampled every ${LAG_SAMPLE_MS} ms from
\`service_findings_lag_seconds\`), then a ${BURST_S} s burst at the maximum rate, then ${READS} sequential reads right
after it (the journey list and a search by e-mail in turn), then the time from the burst's end until no journey
waits for its findings. Busy: two processes spinning on the machine's two cores for the whole run.
Ratios are to the analyzer off in the same condition. Goals: rate ≥ ${GOALS.rate}× and read p95 ≤ ${GOALS.reads}× of analyzer off;
lag at half rate ≤ ${GOALS.halfRateLagS} s; caught up ≤ ${GOALS.catchUpS} s after the burst.

| Machine | Analyzer | Burst rate, events/s | Journey list / search p95 after the burst, ms | Lag at half rate, max | Caught up after the burst |
|---|---|---|---|---|---|
${rows.join('\n')}
`;
  process.stdout.write(`\n${section}`);
  replaceDocsSection(DOCS, HEADING, section);
}

await main();
