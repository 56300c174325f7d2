// Ingestion benchmark (npm run bench:ingest). For Debian's PostgreSQL 15 at /usr/lib/postgresql/15/bin
// with its default, durable settings (fsync and synchronous commit on), then the same with fsync
// off as a second column (BENCH_PG=17 adds the embedded 17), it starts a temporary cluster
// (pg_stat_statements loaded; bench/pg-cluster.ts), builds the app on a real port and measures in
// one run: 100-event batches of new journeys from 8 clients with the findings analyzer off and on
// (in the server's process, as src/main.ts runs it), interleaved with the raw INSERT
// reference of the outside check (4 columns, 100-row INSERTs, 4 connections), a lone batch, the
// single-event route at 8 and 64 clients (analyzer off and on), search and list latency while ingest runs at half its
// maximum rate, the database's time per statement and the server's CPU per batch by module. The
// load generator is a child process on the same cores (bench/ingest-load.ts). Prints the figures
// and replaces the `## Ingestion` section of docs/benchmarks.md (bench/ingest-report.ts).
// BENCH_PG=17 or 15 runs one version; JTRACE_BENCH_CPU_PROFILE=<dir> keeps the .cpuprofile files.

import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { type Pool } from '../src/db/pool.ts';
import { analyzerPacer, startAnalyzer, type Analyzer } from '../src/findings/analyzer.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { prepareEvent, type PrepareContext, type PreparedEvent } from '../src/ingest/prepare.ts';
import { storeEvents } from '../src/ingest/store.ts';
import { findEnvironment } from '../src/projects/environments-sql.ts';
import { startBenchServer, type BenchServer } from './bench-server.ts';
import { BATCH_SIZE, EVENTS_SINCE, PHASE_LIMIT_MS, inChild, makeBatch, makeEvent, type LoadResult } from './ingest-load.ts';
import { renderSection, summarizeProfile, writeIngestSection, type VersionFigures } from './ingest-report.ts';
import { DEBIAN_15_BIN, embeddedBinDir, startCluster, type ClusterSpec } from './pg-cluster.ts';

const CLIENTS = 8;
const COLD_BATCHES = 50;
const WARMUP_BATCHES = 20;
const BATCHES = 150;
/** Batch and raw-INSERT runs alternate this many times; their medians make the ratio. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RAW_CONNECTIONS = 4;
const RAW_STATEMENTS = 200;
const LONE_BATCHES = 60;
const SINGLE_CLIENTS = [8, 64];
const SINGLE_EVENTS = 1_500;
const READS = 200;

const percentile = (values: number[], p: number) => {
  const sorted = values.filter((v) => v !== undefined).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const median = (values: number[]) => percentile(values, 50);
const eventRate = (r: LoadResult, perRequest: number) => (r.done * perRequest) / (r.elapsedMs / 1000);

/**
 * Runs `fn` with the findings analyzer working in this (the server's) process, as src/main.ts
 * starts it; the marks earlier phases left are dropped first, so it works on this phase's journeys only.
 */
async function withAnalyzer<T>(server: BenchServer, fn: () => Promise<T>): Promise<T> {
  await server.pool.query('DELETE FROM journey_findings_pending');
  const metrics = createMetrics();
  const pacer = analyzerPacer(server.pool, server.config.findingsAnalyzerBusyShare, metrics);
  const analyzer: Analyzer = startAnalyzer({ pool: server.pool, keyring: server.keyring, logger: pino({ level: 'silent' }), metrics, pacer });
  try {
    return await fn();
  } finally {
    await analyzer.stop();
    await server.pool.query('DELETE FROM journey_findings_pending');
  }
}

/** The outside check's reference: plain 100-row INSERTs of comparable rows, 4 connections. */
async function rawInsert(pool: Pool, round: number): Promise<number> {
  await pool.query(`CREATE TABLE IF NOT EXISTS raw_events (id text PRIMARY KEY, journey_id text, ts timestamptz, payload jsonb);
    CREATE INDEX IF NOT EXISTS raw_events_journey ON raw_events (journey_id, ts)`);
  const statements = Array.from({ length: RAW_STATEMENTS }, (_, s) => {
    const events = makeBatch(`raw${round}_${s}`) as Array<{ event: { id: string; journeyId: string; timestamp: string } }>;
    const values = events.flatMap((e) => [e.event.id, e.event.journeyId, e.event.timestamp, JSON.stringify(e.event)]);
    const tuples = events.map((_, r) => `($${r * 4 + 1}, $${r * 4 + 2}, $${r * 4 + 3}, $${r * 4 + 4})`);
    return { text: `INSERT INTO raw_events (id, journey_id, ts, payload) VALUES ${tuples.join(', ')}`, values };
  });
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: RAW_CONNECTIONS }, async () => {
    while (next < statements.length && performance.now() - started < PHASE_LIMIT_MS) await pool.query(statements[next++]!);
  }));
  return (next * BATCH_SIZE) / ((performance.now() - started) / 1000);
}

/** The reference earlier runs used: 19 columns of prepared rows, primary key only, 8 connections. */
async function wideRawInsert(pool: Pool, rows: PreparedEvent[]): Promise<number> {
  await pool.query(`CREATE TABLE raw_wide (id text PRIMARY KEY, journey_id text, operation text, name text, service text,
    event_timestamp timestamptz, received_at timestamptz, trace_id text, span_id text, duration_ms int, has_input boolean,
    has_output boolean, input_payload jsonb, output_payload jsonb, payload_diff jsonb, runtime_metadata jsonb,
    custom_metadata jsonb, content_hash text, content_hash_key_id text)`);
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const statements = Array.from({ length: RAW_STATEMENTS }, (_, s) => {
    const values: unknown[] = [];
    const tuples = Array.from({ length: BATCH_SIZE }, (_, r) => {
      const p = rows[(s * BATCH_SIZE + r) % rows.length]!;
      const e = p.event;
      values.push(`${e.id}_${s}_${r}`, e.journeyId, e.operation, e.name, e.service, e.timestamp, new Date().toISOString(), e.traceId, e.spanId,
        e.durationMs, p.capture.hasInput, p.capture.hasOutput, json(p.capture.inputPayload), json(p.capture.outputPayload),
        json(p.payloadDiff), json(p.capture.runtimeMetadata), json(p.capture.customMetadata), p.hash.hash, p.hash.keyId);
      return `(${Array.from({ length: 19 }, (_, c) => `$${r * 19 + c + 1}`).join(', ')})`;
    });
    return { text: `INSERT INTO raw_wide VALUES ${tuples.join(', ')}`, values };
  });
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < statements.length && performance.now() - started < PHASE_LIMIT_MS) await pool.query(statements[next++]!);
  }));
  return (next * BATCH_SIZE) / ((performance.now() - started) / 1000);
}

/** Runs fn under the inspector's CPU profiler of this (the server's) process. */
async function withCpuProfile<T>(fn: () => Promise<T>): Promise<{ result: T; profile: unknown }> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  try {
    const result = await fn();
    const { profile } = await session.post('Profiler.stop');
    return { result, profile };
  } finally {
    session.disconnect();
  }
}

/** The database's time per statement of the ingest path, from pg_stat_statements. */
async function statementTimes(pool: Pool, batches: number) {
  const { rows } = await pool.query<{ query: string; calls: number; total: number; rows: number }>(
    `SELECT query, calls::int8 AS calls, total_exec_time AS total, rows::int8 AS rows FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT ILIKE '%pg_stat_statements%'
      ORDER BY total_exec_time DESC LIMIT 12`,
  );
  // One statement may show as two entries: summed by text.
  const byText = new Map<string, { calls: number; total: number; rows: number }>();
  for (const r of rows) {
    const text = r.query.replace(/\s+/g, ' ').slice(0, 90);
    const sum = byText.get(text) ?? { calls: 0, total: 0, rows: 0 };
    byText.set(text, { calls: sum.calls + r.calls, total: sum.total + r.total, rows: sum.rows + r.rows });
  }
  return [...byText].map(([statement, r]) => ({ statement, callsPerBatch: r.calls / batches, msPerBatch: r.total / batches, rowsPerCall: r.rows / Math.max(1, r.calls) }));
}

/** Prepare (CPU) and the store's statements and commit of one batch at a time, timed apart. */
async function split(server: BenchServer): Promise<{ prepareMs: number; storeMs: number; commitMs: number; rows: PreparedEvent[] }> {
  const { pool, keyring, config, projectId } = server;
  const environment = (await findEnvironment(pool, projectId, 'production'))!;
  const ctx: PrepareContext = {
    keyring, environmentName: 'production', allowFullPayloadCapture: false, maxEventPayloadBytes: config.maxEventPayloadBytes,
    capture: { captureMode: environment.captureMode, redactionPaths: environment.redactionPaths, captureAllowlist: environment.captureAllowlist },
  };
  const prepare: number[] = [], store: number[] = [], commit: number[] = [];
  const rows: PreparedEvent[] = [];
  for (let i = 0; i < 40; i++) {
    const batch = makeBatch(`split${i}`);
    const t0 = performance.now();
    const inputs = batch.map((envelope) => {
      const result = prepareEvent(envelope, ctx);
      if (!result.ok) throw new Error(`benchmark event refused: ${result.refusal.code}`);
      rows.push(result.prepared);
      return { prepared: result.prepared, receivedAtUs: Date.now() * 1000 };
    });
    const t1 = performance.now();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await storeEvents(client, keyring, { projectId, environmentId: environment.id }, inputs);
      const t2 = performance.now();
      await client.query('COMMIT');
      const t3 = performance.now();
      if (i >= 5) prepare.push(t1 - t0), store.push(t2 - t1), commit.push(t3 - t2);
    } finally {
      client.release();
    }
  }
  return { prepareMs: median(prepare), storeMs: median(store), commitMs: median(commit), rows };
}

async function measure(spec: ClusterSpec): Promise<VersionFigures> {
  const cluster = await startCluster(spec);
  const server = await startBenchServer({}, cluster);
  try {
    const { pool, baseUrl, apiKey } = server;
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const job = { baseUrl, apiKey, mode: 'batch' as const, clients: CLIENTS };
    const log = (line: string) => console.log(`[${spec.label}] ${line}`);
    log(`cold: ${COLD_BATCHES} batches on the fresh database ...`);
    await inChild({ ...job, warmup: 0, count: COLD_BATCHES });
    await pool.query('ANALYZE');

    const batchRates: number[] = [], analyzerRates: number[] = [], rawRates: number[] = [], latencies: number[][] = [];
    let profile: unknown = null;
    let statements: Awaited<ReturnType<typeof statementTimes>> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}: raw INSERT, then ${BATCHES} batches from ${CLIENTS} clients ...`);
      rawRates.push(await rawInsert(pool, round));
      const profiled = round === ROUNDS;
      if (profiled) await pool.query('SELECT pg_stat_statements_reset()');
      const run = profiled ? await withCpuProfile(() => inChild({ ...job, warmup: WARMUP_BATCHES, count: BATCHES })) : { result: await inChild({ ...job, warmup: WARMUP_BATCHES, count: BATCHES }), profile: null };
      if (profiled) {
        profile = run.profile;
        statements = await statementTimes(pool, BATCHES + WARMUP_BATCHES);
      }
      batchRates.push(eventRate(run.result, BATCH_SIZE));
      latencies.push(run.result.latencies);
      log(`round ${round}/${ROUNDS}: ${BATCHES} batches with the findings analyzer on ...`);
      analyzerRates.push(eventRate(await withAnalyzer(server, () => inChild({ ...job, warmup: WARMUP_BATCHES, count: BATCHES })), BATCH_SIZE));
    }
    const batchRate = median(batchRates);
    log(`${BATCHES} batches of 100 new one-event journeys, ${CLIENTS} clients ...`);
    const journeysShape = eventRate(await inChild({ ...job, shape: 'journeys', warmup: WARMUP_BATCHES, count: BATCHES }), BATCH_SIZE);
    log('lone batches ...');
    const lone = await inChild({ ...job, clients: 1, warmup: 10, count: LONE_BATCHES });
    const single: Array<{ clients: number; rate: number; analyzerRate: number; failures: number }> = [];
    for (const clients of SINGLE_CLIENTS) {
      log(`single events, ${clients} clients, analyzer off and on ...`);
      const r = await inChild({ ...job, mode: 'single', clients, warmup: 200, count: SINGLE_EVENTS });
      const on = await withAnalyzer(server, () => inChild({ ...job, mode: 'single', clients, warmup: 200, count: SINGLE_EVENTS }));
      single.push({ clients, rate: eventRate(r, 1), analyzerRate: eventRate(on, 1), failures: r.failures + on.failures });
    }
    log('search and list while ingest runs at half its rate ...');
    const probe = makeBatch('probe') as Array<{ event: { entity: { id: string } } }>;
    const response = await fetch(`${baseUrl}/v1/events/batch`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ events: probe }) });
    if (response.status !== 202) throw new Error(`probe batch answered ${response.status}`);
    const since = encodeURIComponent(EVENTS_SINCE);
    const reads = Array.from({ length: 25 }, (_, j) => [`/v1/search?q=${encodeURIComponent(`ord_probe_${j}`)}&since=${since}`, `/v1/journeys?since=${since}`]).flat();
    const halfRate = batchRate / 2;
    const [background, measured] = await Promise.all([
      inChild({ ...job, warmup: 0, count: Math.ceil((halfRate * 25) / BATCH_SIZE), eventsPerSecond: halfRate }),
      inChild({ ...job, mode: 'reads', clients: 1, warmup: 20, count: READS * 2, reads }),
    ]);
    const timeline = await split(server);
    await server.closeApp();
    log('the wide raw INSERT reference of earlier runs ...');
    const wideRaw = await wideRawInsert(pool, timeline.rows);
    return {
      label: spec.label, version: server.postgresVersion, locale: spec.locale, batchRates, analyzerRates, rawRates,
      ratio: batchRate / median(rawRates), batchP50: median(latencies.flat()),
      loneP50: median(lone.latencies), loneP99: percentile(lone.latencies, 99), single,
      halfRate: eventRate(background, BATCH_SIZE), searchP95: percentile(measured.latencies.filter((_, i) => i % 2 === 0), 95),
      listP95: percentile(measured.latencies.filter((_, i) => i % 2 === 1), 95), readFailures: measured.failures,
      statements, cpu: summarizeProfile(profile, BATCHES + WARMUP_BATCHES), split: timeline, journeysShape, wideRaw,
      failures: background.failures,
      profile,
    };
  } finally {
    await server.stop(); // stops the cluster too
    await cluster.stop();
  }
}

async function main(): Promise<void> {
  const wanted = (process.env.BENCH_PG ?? '15,15-fsync-off').split(',');
  const specs: ClusterSpec[] = [];
  if (wanted.includes('15')) specs.push({ label: 'Debian PostgreSQL 15', binDir: DEBIAN_15_BIN, locale: 'C.UTF-8' });
  if (wanted.includes('15-fsync-off')) specs.push({ label: 'Debian PostgreSQL 15, fsync off', binDir: DEBIAN_15_BIN, locale: 'C.UTF-8', settings: ['fsync=off'] });
  if (wanted.includes('17')) specs.push({ label: 'embedded PostgreSQL 17', binDir: await embeddedBinDir(), locale: 'C' });
  const loadAverage = os.loadavg()[0]!;
  const eventBytes = Buffer.byteLength(JSON.stringify(makeEvent('size', 1, 1)));
  const results: VersionFigures[] = [];
  for (const spec of specs) {
    results.push(await measure(spec));
    console.log(renderSection({ loadAverage, loadAverageAfter: os.loadavg()[0]!, eventBytes, clients: CLIENTS, rounds: ROUNDS, results: results.slice(-1) }));
  }
  const profileDir = process.env.JTRACE_BENCH_CPU_PROFILE;
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true });
    for (const r of results) writeFileSync(path.join(profileDir, `ingest-pg${r.version.split('.')[0]}.cpuprofile`), JSON.stringify(r.profile));
  }
  const section = renderSection({ loadAverage, loadAverageAfter: os.loadavg()[0]!, eventBytes, clients: CLIENTS, rounds: ROUNDS, results });
  console.log(`\n${section}`);
  if (wanted.includes('15')) writeIngestSection(section);
}

await main();
