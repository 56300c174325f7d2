// Findings benchmark (npm run bench:findings). On the ingestion benchmark's server and load
// (bench/ingest-load.ts: batches of 100 events, 8 clients, the load in a child process), measures
// the sustained batch rate without the analyzer and with it running in the server's process as
// main.ts runs it, alternating runs (the machine may be shared) and reporting medians, and the
// analyzer's lag while the load runs: the age of the oldest journey change not yet analysed, which
// is how long after ingestion a journey's findings can still be missing. Replaces the
// `## Findings` section of docs/benchmarks.md.

import os from 'node:os';
import pino from 'pino';
import { startAnalyzer } from '../src/findings/analyzer.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { startBenchServer, type BenchServer } from './bench-server.ts';
import { BATCH_SIZE, inChild } from './ingest-load.ts';
import { replaceDocsSection } from './docs-section.ts';

const CLIENTS = 8;
const WARMUP_BATCHES = 20;
const BATCHES = 150;
const RUNS = 3;
const LAG_SAMPLE_MS = 200;
const TARGET_LAG_S = 5;
const TARGET_SLOWDOWN = 0.1;
const DOCS = new URL('../docs/benchmarks.md', import.meta.url);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function lagSeconds(server: BenchServer): Promise<number> {
  const result = await server.pool.query<{ lag: number | null }>(
    'SELECT EXTRACT(EPOCH FROM (clock_timestamp() - min(findings_pending_at)))::float8 AS lag FROM journeys WHERE findings_pending IS NOT NULL',
  );
  return Math.max(0, result.rows[0]?.lag ?? 0);
}

async function pending(server: BenchServer): Promise<number> {
  return (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journeys WHERE findings_pending IS NOT NULL')).rows[0]!.n;
}

async function run(server: BenchServer, withAnalyzer: boolean) {
  // Journeys left from the previous run are analysed first, off the clock.
  const analyzer = withAnalyzer ? startAnalyzer({ pool: server.pool, logger: pino({ level: 'silent' }), metrics: createMetrics(), idleMs: 100 }) : null;
  if (analyzer) while ((await pending(server)) > 0) await analyzer.drain();
  else await server.pool.query('UPDATE journeys SET findings_pending = NULL, findings_pending_at = NULL WHERE findings_pending IS NOT NULL');
  const lags: number[] = [];
  let sampling = withAnalyzer;
  const sampler = (async () => {
    while (sampling) {
      lags.push(await lagSeconds(server));
      await new Promise((resolve) => setTimeout(resolve, LAG_SAMPLE_MS));
    }
  })();
  const load = await inChild({ baseUrl: server.baseUrl, apiKey: server.apiKey, mode: 'batch', clients: CLIENTS, warmup: WARMUP_BATCHES, count: BATCHES });
  const loadEnded = performance.now();
  let drainMs = 0;
  if (analyzer) {
    while ((await pending(server)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    drainMs = performance.now() - loadEnded;
  }
  sampling = false;
  await sampler;
  await analyzer?.stop();
  if (load.failures > 0) throw new Error(`${load.failures} batches failed`);
  return { eventsPerSecond: (load.done * BATCH_SIZE) / (load.elapsedMs / 1000), lags, drainMs };
}

async function main(): Promise<void> {
  const server = await startBenchServer({ findingsAnalyzerEnabled: false });
  try {
    const without: number[] = [];
    const withRates: number[] = [];
    const lags: number[] = [];
    const drains: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      without.push((await run(server, false)).eventsPerSecond);
      const measured = await run(server, true);
      withRates.push(measured.eventsPerSecond);
      lags.push(...measured.lags);
      drains.push(measured.drainMs);
      process.stdout.write(`run ${i + 1}: without ${Math.round(without.at(-1)!)} ev/s, with ${Math.round(measured.eventsPerSecond)} ev/s, max lag ${Math.max(...measured.lags).toFixed(2)} s\n`);
    }
    const journeys = (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journeys')).rows[0]!.n;
    const findings = (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journey_findings')).rows[0]!.n;
    const sortedLags = [...lags].sort((a, b) => a - b);
    const rateWithout = median(without);
    const rateWith = median(withRates);
    const slowdown = 1 - rateWith / rateWithout;
    const maxLag = sortedLags.at(-1) ?? 0;
    const f = (n: number, digits = 0) => n.toFixed(digits);
    const section = `## Findings

\`npm run bench:findings\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores shared, PostgreSQL ${server.postgresVersion}, embedded, fsync on).
The ingestion benchmark's load: ${CLIENTS} clients sending batches of ${BATCH_SIZE} events (25 journeys of four ~1 KB events),
${BATCHES} batches per run after ${WARMUP_BATCHES} to warm up, from a child process. Runs without and with the analyzer
alternate, ${RUNS} of each; medians reported. The analyzer runs in the server's process as \`src/main.ts\` runs it.

| Figure | Value | Target |
|---|---|---|
| Batch rate without the analyzer | ${f(rateWithout)} events/s | |
| Batch rate with the analyzer | ${f(rateWith)} events/s | |
| Rate lost to the analyzer | ${f(slowdown * 100, 1)} % | at most ${f(TARGET_SLOWDOWN * 100)} % ${slowdown <= TARGET_SLOWDOWN ? '(met)' : '(not met)'} |
| Lag during the load, median / p95 / max | ${f(percentile(sortedLags, 50), 2)} / ${f(percentile(sortedLags, 95), 2)} / ${f(maxLag, 2)} s | findings within ${TARGET_LAG_S} s ${maxLag <= TARGET_LAG_S ? '(met)' : '(not met)'} |
| Time from the end of the load to no journey pending (median) | ${f(median(drains))} ms | |

Lag is sampled every ${LAG_SAMPLE_MS} ms as \`service_findings_lag_seconds\` computes it: the age of the oldest journey
change the analyzer has not stored findings for, so the longest any journey waited for its findings.
${journeys} journeys and ${findings} findings at the end (${f(findings / Math.max(1, journeys))} per journey: each step's output has
another shape than its input, so every input field reads as lost there; a worst case of rows to write). The server,
the load, the analyzer and PostgreSQL share the machine's cores with other work: the analyzer competes with
ingestion for the same CPU, which is where both the slowdown and the lag come from.
`;
    process.stdout.write(`\n${section}`);
    replaceDocsSection(DOCS, '## Findings', section);
  } finally {
    await server.stop();
  }
}

await main();
