// Read latency under ingest (npm run bench:read-latency). Starts a temporary PostgreSQL cluster
// with default settings (bench/pg-cluster.ts; BENCH_PG=17 or 15, 17 by default), builds the app on
// a real port, measures the batch rate of 8 clients, then sends search and list requests (one
// client, one after another, API keys as bench:ingest does) while ingest runs at half that rate,
// and without ingest. Requests alternate between two keys: one the server confirms in the read's
// own statement (the way every known key is read), one it is made to look up first each time (the
// way every key was read before: a lookup, then the read), so before and after are interleaved in
// one run. Ingest alternates, phase by phase, between the app (batches prepared in 2 ms slices)
// and a second instance in the same process whose batches are prepared in one go, as before.
// Inside the server it splits each search request into its phases: the time
// before the handler (routing, credential), each statement's round trip (from the query call to
// the code after it running again, so waits for a busy event loop count), and the rest; the
// database's own time per statement comes from pg_stat_statements, the event loop's stalls from
// monitorEventLoopDelay. Prints the figures and replaces the `## Read latency under ingest`
// section of docs/benchmarks.md.

import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/api-key-service.ts';
import { ingestEvents, PREPARE_SLICE_MS } from '../src/ingest/ingest-service.ts';
import { systemMicros } from '../src/ingest/received-clock.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { findEnvironment } from '../src/projects/environments-sql.ts';
import { VerifiedApiKeys } from '../src/auth/verified-api-keys.ts';
import { startBenchServer } from './bench-server.ts';
import { replaceDocsSection } from './docs-section.ts';
import { BATCH_SIZE, EVENTS_SINCE, inChild, makeBatch, type LoadResult } from './ingest-load.ts';
import { DEBIAN_15_BIN, embeddedBinDir, startCluster, type ClusterSpec } from './pg-cluster.ts';

const CLIENTS = 8;
const RATE_BATCHES = Number(process.env.BENCH_RATE_BATCHES ?? 60);
const READS = Number(process.env.BENCH_READS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const percentile = (values: number[], p: number) => {
  const sorted = values.filter((v) => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const eventRate = (r: LoadResult) => (r.done * BATCH_SIZE) / (r.elapsedMs / 1000);
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '-');

/** One search request as the server saw it. */
interface Trace {
  url: string;
  variant: Variant;
  start: number;
  handlerStart: number | null;
  end: number | null;
  statements: Array<{ kind: string; ms: number }>;
}

type Variant = 'confirmed in the read' | 'looked up first';
const VARIANTS: Variant[] = ['confirmed in the read', 'looked up first'];
/** The key read the old way: this instance is made to forget it before each request. */
let lookedUpKey = '';

const current = new AsyncLocalStorage<Trace>();
const traces: Trace[] = [];
let tracing = false;

diagnostics.subscribe('http.server.request.start', (message) => {
  const { request } = message as { request: { url?: string; headers: Record<string, string | undefined> } };
  if (!tracing) return;
  const variant: Variant = request.headers.authorization === `Bearer ${lookedUpKey}` ? 'looked up first' : 'confirmed in the read';
  const trace: Trace = { url: request.url ?? '', variant, start: performance.now(), handlerStart: null, end: null, statements: [] };
  traces.push(trace);
  // Everything the request's handling starts from here on carries the trace.
  current.enterWith(trace);
});
diagnostics.subscribe('http.server.response.finish', () => {
  const trace = current.getStore();
  if (trace && trace.end === null) trace.end = performance.now();
});
diagnostics.tracingChannel('fastify.request.handler').subscribe({
  start: () => {
    const trace = current.getStore();
    if (trace && trace.handlerStart === null) trace.handlerStart = performance.now();
  },
  end: () => {},
  asyncStart: () => {},
  asyncEnd: () => {},
  error: () => {},
});

/** What a statement is, by its text: the credential's lookups, or the read itself. */
function statementKind(sql: string): string {
  if (sql.includes('standing AS')) return sql.includes('search_tokens') ? 'search, key confirmed in it' : 'list, key confirmed in it';
  if (sql.includes('FROM api_keys')) return 'API key lookup';
  if (sql.includes('UPDATE api_keys')) return 'API key last use';
  if (sql.includes('search_tokens')) return 'search';
  if (sql.includes('FROM journeys')) return 'list';
  return sql.replace(/\s+/g, ' ').trim().slice(0, 40);
}

interface VariantFigures {
  variant: Variant;
  searchP50: number;
  searchP95: number;
  listP50: number;
  listP95: number;
  server: Array<{ part: string; p50: number; p95: number }>;
  statements: Array<{ kind: string; perRequest: number }>;
}

interface PhaseFigures {
  label: string;
  ingestRate: number | null;
  failures: number;
  variants: VariantFigures[];
  database: Array<{ statement: string; meanMs: number; calls: number }>;
  loopP50: number;
  loopP99: number;
  loopMax: number;
}

interface RunFigures {
  label: string;
  version: string;
  batchRate: number;
  phases: PhaseFigures[];
  stalls: StallFigures[];
}

/** The longest the event loop was held during one batch's ingestion, and the batch's time. */
interface StallFigures {
  how: string;
  stallP50: number;
  stallP95: number;
  batchP50: number;
  batchP95: number;
}

const STALL_BATCHES = Number(process.env.BENCH_STALL_BATCHES ?? 40);

/**
 * Lone 100-event batches through ingestEvents in this process, prepared in one go and in slices
 * alternately (batch by batch, so the machine's load falls on both alike); a 1 ms timer measures
 * the longest gap between its ticks during each batch: how long a read could have waited for it.
 */
async function stalls(server: Awaited<ReturnType<typeof startBenchServer>>): Promise<StallFigures[]> {
  const { pool, keyring, config, projectId } = server;
  const environment = (await findEnvironment(pool, projectId, 'production'))!;
  const variants = [{ how: 'prepared in one go', sliceMs: Number.POSITIVE_INFINITY }, { how: `prepared in ${PREPARE_SLICE_MS} ms slices`, sliceMs: PREPARE_SLICE_MS }];
  const results = variants.map(() => ({ stalls: [] as number[], batches: [] as number[] }));
  for (let i = 0; i < STALL_BATCHES * 2; i++) {
    const v = i % 2;
    const deps = {
      pool, keyring, logger: pino({ level: 'silent' }), micros: systemMicros, allowFullPayloadCapture: false,
      maxEventPayloadBytes: config.maxEventPayloadBytes, prepareSliceMs: variants[v]!.sliceMs,
    };
    const batch = makeBatch(`stall${i}`).map((envelope) => JSON.parse(JSON.stringify(envelope)) as unknown);
    let last = performance.now();
    let longest = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    last = performance.now();
    longest = 0;
    const started = performance.now();
    await ingestEvents(deps, { projectId, environment }, batch, 'batch');
    const took = performance.now() - started;
    longest = Math.max(longest, performance.now() - last);
    clearInterval(timer);
    if (i >= 4) results[v]!.stalls.push(longest), results[v]!.batches.push(took);
  }
  return variants.map((variant, v) => ({
    how: variant.how,
    stallP50: percentile(results[v]!.stalls, 50), stallP95: percentile(results[v]!.stalls, 95),
    batchP50: percentile(results[v]!.batches, 50), batchP95: percentile(results[v]!.batches, 95),
  }));
}

function serverParts(searches: Trace[]): VariantFigures['server'] {
  const done = searches.filter((t) => t.end !== null);
  const sum = (t: Trace, kind?: string) => t.statements.filter((s) => kind === undefined || s.kind === kind).reduce((a, s) => a + s.ms, 0);
  const kinds = [...new Set(done.flatMap((t) => t.statements.map((s) => s.kind)))];
  const parts: Array<[string, (t: Trace) => number]> = [
    ['whole request in the server', (t) => t.end! - t.start],
    ['before the handler (routing, credential)', (t) => (t.handlerStart ?? t.end!) - t.start],
    ...kinds.map((kind): [string, (t: Trace) => number] => [`round trip: ${kind}`, (t) => sum(t, kind)]),
    ['everything but round trips', (t) => t.end! - t.start - sum(t)],
  ];
  return parts.map(([part, f]) => ({ part, p50: percentile(done.map(f), 50), p95: percentile(done.map(f), 95) }));
}

async function run(spec: ClusterSpec): Promise<RunFigures> {
  const cluster = await startCluster(spec);
  const server = await startBenchServer({}, cluster);
  const log = (line: string) => console.log(`[${spec.label}] ${line}`);
  try {
    const { pool, baseUrl, apiKey, keyring } = server;
    const other = await createApiKey(pool, keyring, { projectSlug: 'bench', environmentName: 'production', name: 'looked up', defaultRetentionDays: 30 });
    lookedUpKey = other.apiKey;
    const get = VerifiedApiKeys.prototype.get;
    VerifiedApiKeys.prototype.get = function (prefix: string) {
      return prefix === other.keyPrefix ? undefined : get.call(this, prefix);
    };
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    // Every statement the app runs through the pool, timed within the request that ran it.
    (pool as unknown as { query: unknown }).query = async (...args: unknown[]) => {
      const trace = current.getStore();
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
      const started = performance.now();
      try {
        return await query(...args);
      } finally {
        trace?.statements.push({ kind: statementKind(text), ms: performance.now() - started });
      }
    };
    // A second instance in the same process and on the same database whose batches are prepared
    // in one go, as before slicing: ingest goes to one instance or the other, phase by phase,
    // and the reads (to the first) meet the stalls of whichever it is.
    const unsliced = await buildApp({
      config: server.config, pool, keyring, adminToken: randomBytes(32).toString('base64url'), logger: pino({ level: 'silent' }),
      metrics: createMetrics(pool), build: { version: '0.0.0', source: 'package' }, ingestPrepareSliceMs: Number.POSITIVE_INFINITY,
    });
    await unsliced.listen({ port: 0, host: '127.0.0.1' });
    const unslicedUrl = `http://127.0.0.1:${(unsliced.server.address() as AddressInfo).port}`;
    const job = { baseUrl, apiKey, mode: 'batch' as const, clients: CLIENTS };
    log('seeding and measuring the batch rate of 8 clients ...');
    await inChild({ ...job, warmup: 0, count: 40 });
    await pool.query('ANALYZE');
    const batchRate = eventRate(await inChild({ ...job, warmup: 10, count: RATE_BATCHES }));
    const probe = makeBatch('probe');
    const response = await fetch(`${baseUrl}/v1/events/batch`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ events: probe }),
    });
    if (response.status !== 202) throw new Error(`probe batch answered ${response.status}`);
    const since = encodeURIComponent(EVENTS_SINCE);
    // search and list, each under both keys in turn: i % 4 = 0, 1 search; 2, 3 list; even i the confirmed key.
    const reads = Array.from({ length: 25 }, (_, j) => {
      const search = `/v1/search?q=${encodeURIComponent(`ord_probe_${j}`)}&since=${since}`;
      return [search, search, `/v1/journeys?since=${since}`, `/v1/journeys?since=${since}`];
    }).flat();
    const readKeys = reads.map((_, i) => (i % 2 === 0 ? apiKey : other.apiKey));
    const readJob = { ...job, mode: 'reads' as const, clients: 1, warmup: 40, count: READS * 4, reads, readKeys };

    const phase = async (label: string, ingestRate: number | null, ingestUrl = baseUrl): Promise<PhaseFigures> => {
      log(`${label} ...`);
      await pool.query('SELECT pg_stat_statements_reset()');
      const loop = monitorEventLoopDelay({ resolution: 1 });
      traces.length = 0;
      tracing = true;
      loop.enable();
      const [background, measured] = await Promise.all([
        ingestRate === null ? Promise.resolve(null) : inChild({ ...job, baseUrl: ingestUrl, warmup: 0, count: Math.ceil((ingestRate * 30) / BATCH_SIZE), eventsPerSecond: ingestRate }),
        inChild(readJob),
      ]);
      loop.disable();
      tracing = false;
      const { rows } = await pool.query<{ query: string; calls: number; mean: number }>(
        `SELECT query, calls::int8 AS calls, mean_exec_time AS mean FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND (query ILIKE '%search_tokens t%' OR query ILIKE '%FROM api_keys k%' OR query ILIKE '%FROM page p%') ORDER BY calls DESC LIMIT 8`,
      );
      const lat = measured.latencies;
      const variants = VARIANTS.map((variant, v): VariantFigures => {
        const searches = traces.filter((t) => t.variant === variant && t.url.startsWith('/v1/search')).slice(5);
        const counts = new Map<string, number>();
        for (const t of searches) for (const s of t.statements) counts.set(s.kind, (counts.get(s.kind) ?? 0) + 1);
        const search = lat.filter((_, i) => i % 4 === v);
        const list = lat.filter((_, i) => i % 4 === 2 + v);
        return {
          variant,
          searchP50: percentile(search, 50),
          searchP95: percentile(search, 95),
          listP50: percentile(list, 50),
          listP95: percentile(list, 95),
          server: serverParts(searches),
          statements: [...counts].map(([kind, n]) => ({ kind, perRequest: n / Math.max(1, searches.length) })),
        };
      });
      return {
        label,
        ingestRate: background === null ? null : eventRate(background),
        failures: measured.failures + (background?.failures ?? 0),
        variants,
        database: rows.map((r) => ({ statement: statementKind(r.query), meanMs: r.mean, calls: r.calls })),
        loopP50: loop.percentile(50) / 1e6,
        loopP99: loop.percentile(99) / 1e6,
        loopMax: loop.max / 1e6,
      };
    };

    const phases: PhaseFigures[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      phases.push(await phase(`round ${round}: reads without ingest`, null));
      phases.push(await phase(`round ${round}: ingest at half the batch rate, each batch prepared in one go`, batchRate / 2, unslicedUrl));
      phases.push(await phase(`round ${round}: ingest at half the batch rate, batches prepared in 2 ms slices`, batchRate / 2));
    }
    await unsliced.close();
    log('event-loop stalls of lone batches, prepared in one go and in slices ...');
    return { label: spec.label, version: server.postgresVersion, batchRate, phases, stalls: await stalls(server) };
  } finally {
    await server.stop();
    await cluster.stop();
  }
}

function render(runs: RunFigures[], loadBefore: number, loadAfter: number): string {
  const lines = [
    '## Read latency under ingest',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} with \`npm run bench:read-latency\` (bench/read-latency.ts): a temporary cluster with`,
    'default settings, the app on a real port, search and list requests from one client, one after another,',
    'without ingest and while 8 clients ingest 100-event batches at half the rate they reached just before',
    '(the load generators are child processes on the same cores). Requests alternate between a key the',
    'server confirms in the read\'s own statement (one statement per request, as every key it has verified',
    'before is read) and a key it is made to look up first (two statements: the lookup, then the read, as',
    'every key was read before). Ingest goes, phase by phase, to the app (each batch prepared in 2 ms slices)',
    'or to a second instance in the same process that prepares each batch in one go, as before slicing; the',
    `reads meet the stalls of either. Times in milliseconds. 1-minute load average ${loadBefore.toFixed(1)} at the start and ${loadAfter.toFixed(1)} at the end (${os.cpus().length} cores).`,
    '',
  ];
  for (const r of runs) {
    lines.push(`### ${r.label} (${r.version}); batch rate ${Math.round(r.batchRate).toLocaleString('en-US')} events/s`, '');
    lines.push('| Phase | key | ingest events/s | search p50 | search p95 | list p50 | list p95 | event-loop delay p50 / p99 / max |');
    lines.push('|---|---|---:|---:|---:|---:|---:|---:|');
    for (const p of r.phases) {
      for (const v of p.variants) {
        lines.push(`| ${p.label} | ${v.variant} | ${p.ingestRate === null ? '-' : Math.round(p.ingestRate).toLocaleString('en-US')} | ${ms(v.searchP50)} | ${ms(v.searchP95)} | ${ms(v.listP50)} | ${ms(v.listP95)} | ${ms(p.loopP50)} / ${ms(p.loopP99)} / ${ms(p.loopMax)} |`);
      }
    }
    const failures = r.phases.reduce((sum, p) => sum + p.failures, 0);
    lines.push('', `Failed requests: ${failures}.`, '');
    lines.push(`Lone 100-event batches through the ingestion service in the server's process, ${STALL_BATCHES} of each kind alternating:`);
    lines.push('the longest the event loop was held during a batch (the longest gap between the ticks of a 1 ms timer),');
    lines.push('which is how long a read arriving then waits, and the batch\'s own time:', '');
    lines.push('| Batch | longest stall p50 | longest stall p95 | batch p50 | batch p95 |', '|---|---:|---:|---:|---:|');
    for (const st of r.stalls) lines.push(`| ${st.how} | ${ms(st.stallP50)} | ${ms(st.stallP95)} | ${ms(st.batchP50)} | ${ms(st.batchP95)} |`);
    lines.push('');
    lines.push('A search request inside the server: p50 / p95 of each part (round trips run from the query call until');
    lines.push('the code after it runs again, so they include waiting for the event loop and for a core), statements');
    lines.push('per request, and the database\'s own mean time per statement (pg_stat_statements):', '');
    const columns = r.phases.flatMap((p) => p.variants.map((v) => ({ p, v })));
    lines.push(`| Part | ${columns.map(({ p, v }) => `${p.label}, ${v.variant}`).join(' | ')} |`);
    lines.push(`|---|${columns.map(() => '---:').join('|')}|`);
    const parts = [...new Set(columns.flatMap(({ v }) => v.server.map((s) => s.part)))];
    for (const part of parts) {
      lines.push(`| ${part} | ${columns.map(({ v }) => { const s = v.server.find((x) => x.part === part); return s ? `${ms(s.p50)} / ${ms(s.p95)}` : '-'; }).join(' | ')} |`);
    }
    const kinds = [...new Set(columns.flatMap(({ v }) => v.statements.map((s) => s.kind)))];
    for (const kind of kinds) {
      lines.push(`| statements per request: ${kind} | ${columns.map(({ v }) => (v.statements.find((s) => s.kind === kind)?.perRequest ?? 0).toFixed(2)).join(' | ')} |`);
    }
    lines.push('');
    const statements = [...new Set(r.phases.flatMap((p) => p.database.map((d) => d.statement)))];
    lines.push(`| Database mean per statement | ${r.phases.map((p) => p.label).join(' | ')} |`);
    lines.push(`|---|${r.phases.map(() => '---:').join('|')}|`);
    for (const statement of statements) {
      lines.push(`| ${statement} | ${r.phases.map((p) => ms(p.database.find((d) => d.statement === statement)?.meanMs ?? NaN)).join(' | ')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const wanted = (process.env.BENCH_PG ?? '17').split(',');
  const specs: ClusterSpec[] = [];
  if (wanted.includes('17')) specs.push({ label: 'embedded PostgreSQL 17', binDir: await embeddedBinDir(), locale: 'C' });
  if (wanted.includes('15')) specs.push({ label: 'Debian PostgreSQL 15', binDir: DEBIAN_15_BIN, locale: 'C.UTF-8' });
  const loadBefore = os.loadavg()[0]!;
  const runs: RunFigures[] = [];
  for (const spec of specs) runs.push(await run(spec));
  const section = render(runs, loadBefore, os.loadavg()[0]!);
  console.log(`\n${section}`);
  if (process.env.BENCH_WRITE !== '0') replaceDocsSection(new URL('../docs/benchmarks.md', import.meta.url), '## Read latency under ingest', section);
}

await main();
