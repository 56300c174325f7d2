// Query benchmark (npm run bench:query; not a test). Starts its own embedded PostgreSQL in a
// temporary directory, migrates, generates journeys and events set-based in SQL, then times the
// read routes through app.inject and shows the index use of each. Prints a table and replaces
// the `## Query` section of docs/benchmarks.md. BENCH_JOURNEYS scales the data set (default
// 1,000,000 journeys), BENCH_EVENTS_PER_JOURNEY their mean number of events (5; the 10-million
// run of docs/operations.md uses 3); BENCH_REQUESTS the requests per scenario (300). It ends by
// measuring ingestion into the loaded database against an empty one (bench/query-ingest.ts).
// BENCH_SHAPE=compact stores smaller events and one alias per journey (query-data.ts), so that 10
// million journeys fit a disk of about 80 GB. BENCH_DATA_DIR keeps the cluster in that folder:
// a later run with the same folder measures the loaded data again without loading it, and
// BENCH_PHASE=load only loads it (a long load on a busy machine, measured once the machine is
// quiet). BENCH_TEMP_DIR puts the sorts of the index builds in another folder (say under
// /dev/shm), so that they need no disk beside the data.

import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync, statfsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/api-key-service.ts';
import { loadConfig } from '../src/config/config.ts';
import { createKeyring } from '../src/crypto/keyring.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { createProject } from '../src/projects/projects-sql.ts';
import { ENVIRONMENTS, SURNAMES, emailAlias, entityId, journeyId, loadData, secondsSince, traceId, type Shape } from './query-data.ts';
import { renderSection, type Result, type RunInfo } from './query-markdown.ts';
import { explainStatements, percentiles, recordStatements, writeSection } from './query-report.ts';
import { freePort } from '../test/helpers/free-port.ts';
import { measureIngestRatio, type IngestRatio } from './query-ingest.ts';

const JOURNEYS = Number(process.env.BENCH_JOURNEYS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const EVENTS_PER_JOURNEY = Number(process.env.BENCH_EVENTS_PER_JOURNEY ?? 5);
const WARMUP = 100;
const SHAPE = parseShape(process.env.BENCH_SHAPE ?? 'full');
const KEPT_DATA_DIR = process.env.BENCH_DATA_DIR ? path.resolve(process.env.BENCH_DATA_DIR) : null;
const TEMP_DIR = process.env.BENCH_TEMP_DIR ? path.resolve(process.env.BENCH_TEMP_DIR) : null;
const LOAD_ONLY = process.env.BENCH_PHASE === 'load';
/** Beyond a few million journeys the WAL a load leaves behind would take the disk the data needs. */
const LARGE = JOURNEYS > 2_000_000;
/** The default run and a large one keep a section each in docs/benchmarks.md. */
const HEADING = LARGE ? `## Query at ${JOURNEYS.toLocaleString('en')} journeys` : '## Query';
/** Bytes on disk per journey of each shape at 3 events per journey (measured; the check below leaves a margin). */
const BYTES_PER_JOURNEY: Record<Shape, number> = { full: 8_100, compact: 6_500 };
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdefghijklmnop';
const DAY_MS = 86_400_000;
/** Server settings of the run: memory for a 1M-journey data set, a quick load. Printed in the report. */
export const SERVER_SETTINGS: Record<string, string> = {
  shared_buffers: '2GB',
  effective_cache_size: '8GB',
  // wal_level=minimal: index builds write no WAL, so a large load needs little beyond its data.
  ...(LARGE ? { max_wal_size: '2GB', wal_level: 'minimal', max_wal_senders: '0' } : { max_wal_size: '8GB' }),
  checkpoint_timeout: '30min',
};

function parseShape(value: string): Shape {
  if (value !== 'full' && value !== 'compact') throw new Error(`BENCH_SHAPE must be full or compact, not ${value}`);
  return value;
}

const log = (line: string) => console.log(line);
type App = Awaited<ReturnType<typeof buildApp>>;


async function startServer(dataDir: string, port: number): Promise<EmbeddedDatabase> {
  let server = await startEmbeddedPostgres({ dataDir, port, fsync: false });
  const admin = new pg.Client(server.url);
  await admin.connect();
  for (const [name, value] of Object.entries(SERVER_SETTINGS)) await admin.query(`ALTER SYSTEM SET ${name} = '${value}'`);
  const kept = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'jtrace_bench'`);
  if (kept.rowCount === 0) await admin.query('CREATE DATABASE jtrace_bench');
  if (TEMP_DIR && (await admin.query(`SELECT 1 FROM pg_tablespace WHERE spcname = 'bench_temp'`)).rowCount === 0) {
    // The tablespace's folder must be empty and belong to the user the server runs as.
    const owner = statSync(path.join(dataDir, 'pg'));
    mkdirSync(TEMP_DIR, { recursive: true });
    chownSync(TEMP_DIR, owner.uid, owner.gid);
    await admin.query(`CREATE TABLESPACE bench_temp LOCATION '${TEMP_DIR}'`);
  }
  await admin.end();
  // shared_buffers takes a restart.
  await server.stop();
  server = await startEmbeddedPostgres({ dataDir, port, fsync: false });
  return server;
}

function databaseUrl(serverUrl: string, name = 'jtrace_bench'): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

interface DiskUse {
  journeyBytes: number;
  eventBytes: number;
  totalBytes: number;
}

/** Bytes on disk (heap, TOAST, indexes) per journey (with its aliases and tokens) and per event (with its id row). */
async function diskUse(pool: Pool, counts: RunInfo['counts']): Promise<DiskUse> {
  const size = async (sql: string) => Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);
  const journeys = await size(`SELECT pg_total_relation_size('journeys') + pg_total_relation_size('journey_aliases') + pg_total_relation_size('search_tokens') AS n`);
  const events = await size(`SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('events')) + pg_total_relation_size('event_ids') AS n`);
  const total = await size('SELECT pg_database_size(current_database()) AS n');
  return { journeyBytes: journeys / counts.journeys, eventBytes: events / Math.max(1, counts.events), totalBytes: total };
}

/** A loader pool: no timeout, no foreign-key triggers during the load (the data is made consistent). */
function loaderPool(url: string): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    options: `-c statement_timeout=0 -c session_replication_role=replica -c maintenance_work_mem=1GB -c max_parallel_maintenance_workers=2 -c synchronous_commit=off${TEMP_DIR ? ' -c temp_tablespaces=bench_temp' : ''}`,
  });
  // A connection ended by the server stopping must not crash the run.
  pool.on('error', () => {});
  return pool;
}

interface Scenario {
  name: string;
  target: number;
  url: (i: number) => string;
  /** Another credential than the admin token. */
  headers?: Record<string, string>;
}

interface Samples {
  /** nextCursor of first pages of the 7-day list. */
  cursors: string[];
  /** Journey numbers whose journey lies in the 7-day window. */
  recent: number[];
  apiKey: string;
}

const pick = (i: number) => 1 + ((i * 7_919 + 104_729) % JOURNEYS);

function scenarios(nowMs: number, { cursors, recent, apiKey }: Samples): Scenario[] {
  const since = (i: number) => encodeURIComponent(new Date(nowMs - 7 * DAY_MS - i * 1000).toISOString());
  const surname = (i: number) => SURNAMES[i % SURNAMES.length]!;
  return [
    { name: 'search by entity id', target: 5, url: (i) => `/v1/search?q=${entityId(pick(i))}` },
    { name: 'search by alias', target: 5, url: (i) => `/v1/search?q=${encodeURIComponent(emailAlias(pick(i)))}` },
    { name: 'search by trace id', target: 5, url: (i) => `/v1/search?q=${traceId(pick(i))}` },
    { name: 'list 7 days', target: 30, url: (i) => `/v1/journeys?since=${since(i)}` },
    { name: 'list 7 days, API key (production)', target: 30, url: (i) => `/v1/journeys?since=${since(i)}`, headers: { authorization: `Bearer ${apiKey}` } },
    { name: 'list 7 days, status=failed', target: 30, url: (i) => `/v1/journeys?since=${since(i)}&status=failed` },
    { name: 'list 7 days, environment=staging', target: 30, url: (i) => `/v1/journeys?since=${since(i)}&environment=staging` },
    { name: 'list 7 days, service=crm', target: 30, url: (i) => `/v1/journeys?since=${since(i)}&service=crm` },
    { name: 'list 7 days, next page', target: 30, url: (i) => `/v1/journeys?since=${since(0)}&cursor=${cursors[i % cursors.length]}` },
    { name: 'list 7 days, q=<surname>', target: 100, url: (i) => `/v1/journeys?since=${since(i)}&q=${surname(i)}` },
    { name: 'list 7 days, q=order (in most labels)', target: 100, url: (i) => `/v1/journeys?since=${since(i)}&q=order` },
    { name: 'list 7 days, q=zq (two characters, no match)', target: 100, url: (i) => `/v1/journeys?since=${since(i)}&q=zq` },
    { name: 'list 7 days, q=<surname>, status=failed', target: 100, url: (i) => `/v1/journeys?since=${since(i)}&q=${surname(i)}&status=failed` },
    { name: 'list 7 days, q=<one alias>', target: 100, url: (i) => `/v1/journeys?since=${since(i)}&q=${encodeURIComponent(`user${recent[i % recent.length]}@`)}` },
    { name: 'timeline page', target: 10, url: (i) => `/v1/journeys/${journeyId(pick(i))}/events` },
    { name: 'one event', target: 10, url: (i) => `/v1/events/evt_${journeyId(pick(i)).slice(4)}_1` },
  ];
}

async function collectSamples(app: App, pool: Pool, headers: Record<string, string>, projectId: string, nowMs: number): Promise<Samples> {
  const since = new Date(nowMs - 7 * DAY_MS).toISOString();
  const cursors: string[] = [];
  for (let i = 0; i < 50; i++) {
    const first = await app.inject({ method: 'GET', url: `/v1/journeys?since=${encodeURIComponent(since)}&limit=${1 + i}`, headers });
    cursors.push(first.json().data.nextCursor as string);
  }
  const recent = await pool.query<{ n: number }>(
    `SELECT substring(label from '^Order ([0-9]+) ')::int AS n FROM journeys
      WHERE project_id = $1 AND last_event_at >= $2 AND label IS NOT NULL ORDER BY random() LIMIT 500`,
    [projectId, since],
  );
  return { cursors, recent: recent.rows.map((row) => row.n), apiKey: '' };
}

async function timeScenario(app: App, headers: Record<string, string>, scenario: Scenario) {
  const samples: number[] = [];
  let empty = 0;
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const started = performance.now();
    const response = await app.inject({ method: 'GET', url: scenario.url(i), headers: scenario.headers ?? headers });
    const elapsed = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`${scenario.name}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    const data = response.json().data as { items?: unknown[] };
    if (i >= WARMUP) {
      samples.push(elapsed);
      if (data.items !== undefined && data.items.length === 0) empty++;
    }
  }
  return { timing: percentiles(samples), empty };
}

interface Prepared {
  appPool: Pool;
  keyring: ReturnType<typeof createKeyring>;
  projectId: string;
  nowMs: number;
  counts: RunInfo['counts'];
  loadTime: string;
}

/** The run a kept cluster was loaded by: what a later run needs to measure it again. */
interface LoadedRun {
  projectId: string;
  nowMs: number;
  loadTime: string;
}

async function loadedRun(pool: Pool): Promise<LoadedRun | null> {
  await pool.query('CREATE TABLE IF NOT EXISTS bench_run (journeys int, shape text, project_id uuid, now_ms bigint, load_time text)');
  const row = (await pool.query<{ journeys: number; shape: string; project_id: string; now_ms: string; load_time: string }>('SELECT * FROM bench_run')).rows[0];
  if (!row) return null;
  if (row.journeys !== JOURNEYS || row.shape !== SHAPE) {
    throw new Error(`the cluster in BENCH_DATA_DIR holds ${row.journeys} journeys of the ${row.shape} shape, not ${JOURNEYS} of the ${SHAPE} shape`);
  }
  return { projectId: row.project_id, nowMs: Number(row.now_ms), loadTime: row.load_time };
}

/** Refuses a load the disk cannot hold, before hours of it rather than at their end. */
function checkDisk(dataDir: string): void {
  const stats = statfsSync(dataDir);
  const free = stats.bavail * stats.bsize;
  const perJourney = (BYTES_PER_JOURNEY[SHAPE] * EVENTS_PER_JOURNEY) / 3;
  // Without a temp folder elsewhere, the largest index build sorts beside the data.
  const needed = JOURNEYS * perJourney * (TEMP_DIR ? 1.05 : 1.2) + 3 * 2 ** 30;
  const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  log(`Disk: about ${gib(needed)} needed, ${gib(free)} free`);
  if (needed > free) throw new Error(`the load needs about ${gib(needed)} and ${dataDir} has ${gib(free)} free: fewer journeys, BENCH_SHAPE=compact or BENCH_TEMP_DIR`);
}

/** Migrates, creates the project and its environments, and loads the data set (or finds it loaded). */
async function prepare(url: string, dataDir: string, pools: Pool[]): Promise<Prepared> {
  const appPool = createPool({ connectionString: url, max: 10, statementTimeoutMs: 15_000, applicationName: 'jtrace-bench' });
  const loader = loaderPool(url);
  pools.push(appPool, loader);
  const keyring = createKeyring({ current: 'bench-encryption-key-0123456789abcdefghijklmnop' });
  let run = await loadedRun(appPool);
  if (run) {
    log(`Measuring the ${JOURNEYS.toLocaleString('en')} journeys loaded before (in ${run.loadTime})`);
    // Migrations added since the load apply to the kept data as to any database; an ANALYZE of
    // ten million rows takes longer than the app pool's statement timeout.
    const migrator = createPool({ connectionString: url, max: 1, statementTimeoutMs: 0, applicationName: 'jtrace-bench' });
    pools.push(migrator);
    await migrate(migrator);
  } else {
    checkDisk(dataDir);
    await migrate(appPool);
    await loader.query('CREATE EXTENSION IF NOT EXISTS pgcrypto');
    const projectId = (await createProject(appPool, 'bench', 'Benchmark')).id;
    const environmentIds: string[] = [];
    for (const name of ENVIRONMENTS) {
      const row = await appPool.query<{ id: string }>(
        `INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, gen_random_uuid(), $2, 30) RETURNING id`,
        [projectId, name],
      );
      environmentIds.push(row.rows[0]!.id);
    }
    const nowMs = Date.now();
    log(`Generating ${JOURNEYS.toLocaleString('en')} journeys of the ${SHAPE} shape and their events`);
    const loadStarted = performance.now();
    const scale = { journeys: JOURNEYS, chunk: 100_000, eventsPerJourney: EVENTS_PER_JOURNEY, shape: SHAPE };
    await loadData({ pool: loader, keyring, projectId, environmentIds, nowMs, scale, log });
    run = { projectId, nowMs, loadTime: secondsSince(loadStarted) };
    await appPool.query('INSERT INTO bench_run VALUES ($1, $2, $3, $4, $5)', [JOURNEYS, SHAPE, projectId, nowMs, run.loadTime]);
  }
  // Counting 30 million events takes longer than the app pool's statement timeout.
  const counts = await loader.query<RunInfo['counts']>(
    `SELECT (SELECT count(*) FROM journeys)::int AS journeys, (SELECT count(*) FROM events)::int AS events,
            (SELECT count(*) FROM journey_aliases)::int AS aliases, (SELECT count(*) FROM search_tokens)::int AS tokens`,
  );
  log(`Loaded in ${run.loadTime}: ${JSON.stringify(counts.rows[0])}`);
  return { appPool, keyring, projectId: run.projectId, nowMs: run.nowMs, counts: counts.rows[0]!, loadTime: run.loadTime };
}

/** Times every scenario through the app, then EXPLAINs the statements of one more request of each. */
async function measure(ctx: Prepared): Promise<{ results: Result[]; loadAverage: [number, number] }> {
  const recorder = recordStatements(ctx.appPool);
  const app = await buildApp({
    config: { ...loadConfig({}), replayAllowedHosts: [] },
    pool: ctx.appPool,
    keyring: ctx.keyring,
    adminToken: ADMIN_TOKEN,
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(ctx.appPool),
    build: { version: '0.0.0', source: 'package' },
  });
  try {
    await app.ready();
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-service-project-id': ctx.projectId };
    const samples = await collectSamples(app, ctx.appPool, headers, ctx.projectId, ctx.nowMs);
    const key = { projectSlug: 'bench', environmentName: 'production', name: `bench-${Date.now()}`, defaultRetentionDays: 30 };
    samples.apiKey = (await createApiKey(ctx.appPool, ctx.keyring, key)).apiKey;
    const results: Result[] = [];
    const loadBefore = os.loadavg()[0]!;
    for (const scenario of scenarios(ctx.nowMs, samples)) {
      const { timing, empty } = await timeScenario(app, headers, scenario);
      recorder.statements = [];
      recorder.on = true;
      await app.inject({ method: 'GET', url: scenario.url(REQUESTS + WARMUP), headers: scenario.headers ?? headers });
      recorder.on = false;
      const plan = await explainStatements(ctx.appPool, recorder.statements);
      results.push({ name: scenario.name, target: scenario.target, timing, empty, scans: plan.scans, databaseMs: plan.executionMs });
      log(`${scenario.name.padEnd(46)} p50 ${timing.p50.toFixed(2)}  p95 ${timing.p95.toFixed(2)}  p99 ${timing.p99.toFixed(2)} ms`);
    }
    return { results, loadAverage: [loadBefore, os.loadavg()[0]!] };
  } finally {
    await app.close();
  }
}

async function report(ctx: Prepared, results: Result[], loadAverage: [number, number], disk: DiskUse, ingest: IngestRatio): Promise<void> {
  const version = (await ctx.appPool.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
  const info: RunInfo = {
    date: new Date().toISOString().slice(0, 10),
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: version,
    counts: ctx.counts,
    loadTime: ctx.loadTime,
    requests: REQUESTS,
    warmup: WARMUP,
    loadAverage,
    settings: SERVER_SETTINGS,
    heading: HEADING,
    shape: SHAPE,
  };
  const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);
  const section = `${renderSection(info, results).trimEnd()}

### Size on disk and ingestion into this database

- On disk after the load: ${gib(disk.totalBytes)} GiB in all; **${Math.round(disk.journeyBytes)} bytes per journey** (the journey row,
  its aliases and search tokens, with their indexes) and **${Math.round(disk.eventBytes)} bytes per event** (the event in its day
  partition, its event_ids row, their indexes); ${EVENTS_PER_JOURNEY} events per journey on average.
- Ingestion into this database against an empty one on the same server (bench/query-ingest.ts: batches of 100 events of 25
  new journeys each through prepare and storeEvents, 4 concurrent transactions, alternating rounds):
  ${Math.round(ingest.loadedEventsPerSecond).toLocaleString('en')} events/s against ${Math.round(ingest.emptyEventsPerSecond).toLocaleString('en')}:
  **${ingest.ratio.toFixed(2)}** of the empty database's rate (target ≥ 0.8).
`;
  console.log(`\n${section}`);
  writeSection(new URL('../docs/benchmarks.md', import.meta.url), HEADING, section);
}

async function main(): Promise<void> {
  const startedAll = performance.now();
  const dataDir = KEPT_DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'jtrace-bench-query-'));
  let server: EmbeddedDatabase | null = null;
  const pools: Pool[] = [];
  let cleaning: Promise<void> | null = null;
  // Once, whoever asks first. Interrupted, the server goes first: pg_ctl's fast stop ends the
  // statement still running, which the pools would otherwise wait for.
  const cleanup = (interrupted: boolean) =>
    (cleaning ??= (async () => {
      if (interrupted && server) await server.stop().catch(() => {});
      for (const pool of pools) await pool.end().catch(() => {});
      if (!interrupted && server) await server.stop().catch(() => {});
      if (!KEPT_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    })());
  // An interrupted run must not leave a PostgreSQL running or its data behind either.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanup(true).finally(() => process.exit(130)));
  }
  try {
    log(`Starting PostgreSQL in ${dataDir}`);
    server = await startServer(dataDir, await freePort());
    const ctx = await prepare(databaseUrl(server.url), dataDir, pools);
    if (LOAD_ONLY) {
      log(`Loaded into ${dataDir}; run again with the same BENCH_DATA_DIR to measure; total ${secondsSince(startedAll)}`);
      return;
    }
    const { results, loadAverage } = await measure(ctx);
    const disk = await diskUse(ctx.appPool, ctx.counts);
    log(`disk: ${Math.round(disk.journeyBytes)} B per journey, ${Math.round(disk.eventBytes)} B per event, ${(disk.totalBytes / 2 ** 30).toFixed(1)} GiB`);
    const admin = new pg.Client(server.url);
    await admin.connect();
    await admin.query('DROP DATABASE IF EXISTS jtrace_empty');
    await admin.query('CREATE DATABASE jtrace_empty');
    await admin.end();
    const emptyPool = createPool({ connectionString: databaseUrl(server.url, 'jtrace_empty'), max: 6, statementTimeoutMs: 0 });
    pools.push(emptyPool);
    const ingest = await measureIngestRatio(ctx.appPool, ctx.projectId, emptyPool, ctx.keyring, log);
    await report(ctx, results, loadAverage, disk, ingest);
    log(`Wrote the section "${HEADING.slice(3)}" of docs/benchmarks.md; total ${secondsSince(startedAll)}`);
  } finally {
    await cleanup(false);
  }
}

await main();
