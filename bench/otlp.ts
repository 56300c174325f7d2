// OTLP benchmark (npm run bench:otlp). Starts its own embedded PostgreSQL in a temporary
// directory, builds the app with OTLP_ENABLED on a real port and sends the same events, in one
// run, as POST /v1/events/batch (100 envelopes), as POST /v1/traces protobuf and as POST
// /v1/traces OTLP JSON (100 spans each), from a child process over keep-alive connections. The
// three routes take turns, three rounds, and each route's median round is reported. Prints a
// table and replaces the `## OTLP input` section of docs/benchmarks.md.

import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { Pool as HttpPool } from 'undici';
import { jsonTraces, toProtobuf, type SpanSpec } from '../src/otlp/test-payloads.ts';
import { runInChild, serveChildJob, startBenchServer } from './bench-server.ts';
import { BATCH_SIZE, makeBatch } from './ingest-load.ts';

const CLIENTS = 8;
const WARMUP_REQUESTS = 30;
const REQUESTS = 150;
const ROUNDS = 3;
/** The target of the OTLP input: protobuf at no less than this share of the batch route's rate. */
const TARGET_SHARE = 0.8;
const JOB_VARIABLE = 'JTRACE_BENCH_OTLP_JOB';
const DOCS = new URL('../docs/benchmarks.md', import.meta.url);

type Route = 'batch' | 'otlp-protobuf' | 'otlp-json';
const ROUTES: Route[] = ['batch', 'otlp-protobuf', 'otlp-json'];
const LABELS: Record<Route, string> = {
  batch: 'POST /v1/events/batch (JSON, 100 events)',
  'otlp-protobuf': 'POST /v1/traces, protobuf (100 spans)',
  'otlp-json': 'POST /v1/traces, OTLP JSON (100 spans)',
};

interface Job { baseUrl: string; apiKey: string; route: Route; warmup: number; count: number }
interface Result { elapsedMs: number; done: number; failures: number; bodyBytes: number }

type Envelope = { event: Record<string, unknown> & { entity: { type: string; id: string } } };

/** The span an OpenTelemetry SDK would send for the same event: objects as JSON strings. */
function spanOf({ event }: Envelope): SpanSpec {
  const json = (value: unknown) => JSON.stringify(value);
  return {
    traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), name: event.name as string,
    startMs: Date.parse(event.timestamp as string), durationMs: event.durationMs as number,
    attributes: {
      'jtrace.journey.id': event.journeyId as string, 'jtrace.entity.type': event.entity.type, 'jtrace.entity.id': event.entity.id,
      'jtrace.operation': event.operation as string, 'jtrace.input': json(event.input), 'jtrace.output': json(event.output),
      'jtrace.metadata': json(event.metadata),
      ...(event.aliases ? { 'jtrace.aliases': json(event.aliases), 'jtrace.displayable_aliases': event.displayableAliases as string[] } : {}),
    },
  };
}

/** One request body: 100 events (25 journeys of four steps), runtime left out as OTLP has no place for it. */
function body(route: Route, tag: string): string | Buffer {
  const envelopes = makeBatch(tag) as Envelope[];
  for (const { event } of envelopes) delete event.runtime;
  if (route === 'batch') return JSON.stringify({ events: envelopes });
  // One resource per service, as each service's SDK would export.
  const byService = new Map<string, SpanSpec[]>();
  for (const envelope of envelopes) {
    const service = envelope.event.service as string;
    byService.set(service, [...(byService.get(service) ?? []), spanOf(envelope)]);
  }
  const request = { resourceSpans: [...byService].flatMap(([service, spans]) => (jsonTraces(service, spans) as { resourceSpans: unknown[] }).resourceSpans) };
  return route === 'otlp-json' ? JSON.stringify(request) : toProtobuf('traces', request);
}

async function runLoad(job: Job): Promise<Result> {
  const http = new HttpPool(job.baseUrl, { connections: CLIENTS, keepAliveTimeout: 30_000 });
  const path = job.route === 'batch' ? '/v1/events/batch' : '/v1/traces';
  const contentType = job.route === 'otlp-protobuf' ? 'application/x-protobuf' : 'application/json';
  let failures = 0;
  const phase = async (count: number, tag: string) => {
    const payloads = Array.from({ length: count }, (_, i) => body(job.route, `${tag}${i}_${randomBytes(4).toString('hex')}`)); // built before timing
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (next < count) {
        const response = await http.request({ path, method: 'POST', body: payloads[next++]!, headers: { 'content-type': contentType, authorization: `Bearer ${job.apiKey}` } });
        const text = await response.body.text();
        // Full success only: 202 without a refusal, or OTLP 200 without partialSuccess.
        const ok = job.route === 'batch' ? response.statusCode === 202 && !text.includes('"rejected"') : response.statusCode === 200 && !text.includes('partialSuccess') && (job.route === 'otlp-json' || text.length === 0);
        if (!ok) failures++;
      }
    }));
    return { elapsedMs: performance.now() - started, bodyBytes: count > 0 ? Buffer.byteLength(payloads[0]!) : 0 };
  };
  await phase(job.warmup, `w${job.route}`);
  failures = 0;
  const { elapsedMs, bodyBytes } = await phase(job.count, `m${job.route}`);
  await http.close();
  return { elapsedMs, done: job.count, failures, bodyBytes };
}

function inChild(job: Job): Promise<Result> {
  return runInChild(import.meta.url, JOB_VARIABLE, job);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const server = await startBenchServer({ otlpEnabled: true });
  try {
    const { pool, baseUrl, apiKey, postgresVersion } = server;
    const loadAverage = os.loadavg()[0]!;

    // Past the statistics warm-up first, so no route pays for the fresh database's plans.
    await inChild({ baseUrl, apiKey, route: 'batch', warmup: 0, count: 20 });
    await pool.query('ANALYZE');
    const results: Record<Route, Result[]> = { batch: [], 'otlp-protobuf': [], 'otlp-json': [] };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const route of ROUTES) {
        console.log(`round ${round}/${ROUNDS}, ${route}: ${WARMUP_REQUESTS} warm-up + ${REQUESTS} × ${BATCH_SIZE} events, ${CLIENTS} clients ...`);
        results[route].push(await inChild({ baseUrl, apiKey, route, warmup: WARMUP_REQUESTS, count: REQUESTS }));
      }
    }
    const rate = (r: Result) => (r.done * BATCH_SIZE) / (r.elapsedMs / 1000);
    const median = (route: Route) => [...results[route]].sort((a, b) => rate(a) - rate(b))[Math.floor(ROUNDS / 2)]!;
    const batchRate = rate(median('batch'));
    const rows = ROUTES.map((route) => {
      const m = median(route);
      const failures = results[route].reduce((n, r) => n + r.failures, 0);
      return [LABELS[route], `${fmt(rate(m))} events/s (rounds: ${results[route].map((r) => fmt(rate(r))).join(', ')}; ${failures} failed requests)`,
        `${((rate(m) / batchRate) * 100).toFixed(0)} %`, `${fmt(m.bodyBytes)} B`] as [string, string, string, string];
    });
    const machine = `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB memory, Node ${process.version}, PostgreSQL ${postgresVersion}`;
    console.log(`\n${machine}\n`);
    console.table(rows.map(([route, result, share, size]) => ({ route, result, share, size })));
    const protobufShare = rate(median('otlp-protobuf')) / batchRate;
    writeSection(`## OTLP input

Measured on ${new Date().toISOString().slice(0, 10)} with \`npm run bench:otlp\` (bench/otlp.ts).
Machine: ${machine}. Load average ${loadAverage.toFixed(1)} when the run began${
      loadAverage >= 1 ? ': other work was running on the machine, so the absolute rates are low and spread widely between rounds; the comparison holds because the routes took turns under the same load' : ''}. The script starts its own embedded
PostgreSQL, builds the app with \`OTLP_ENABLED=true\` on a real port and sends the same events three ways from a child
process (undici, ${CLIENTS} keep-alive connections, ${REQUESTS} requests of ${BATCH_SIZE} events per round after ${WARMUP_REQUESTS} warm-up requests): as
protocol 0.1 envelopes to the batch route, and as spans whose attributes carry the same fields (objects as JSON strings,
as OpenTelemetry SDKs set them) to \`/v1/traces\` in protobuf and in OTLP JSON. The events are those of the ingestion
benchmark without \`runtime\` (OTLP has no place for it). The routes take turns for ${ROUNDS} rounds; each route's median round is shown.

| Route | Throughput | Share of the batch route | Body size |
|---|---|---|---|
${rows.map((row) => `| ${row.join(' | ')} |`).join('\n')}

- **Target** (protobuf OTLP at ≥ ${TARGET_SHARE * 100} % of the batch route's rate): ${protobufShare >= TARGET_SHARE ? 'met' : 'missed'} (${(protobufShare * 100).toFixed(0)} %).
- Both OTLP encodings end in the same pipeline call as the batch route; the difference is decoding the export and
  building the envelopes (attribute JSON strings parsed back into objects).
`);
    console.log(`\nwrote the OTLP input section of ${DOCS.pathname}`);
  } finally {
    await server.stop();
  }
}

/** Replaces the `## OTLP input` section of docs/benchmarks.md, or appends it. */
function writeSection(section: string): void {
  const text = readFileSync(DOCS, 'utf8');
  const start = text.indexOf('## OTLP input');
  if (start === -1) return writeFileSync(DOCS, `${text.trimEnd()}\n\n${section}`);
  const next = text.indexOf('\n## ', start + 1);
  writeFileSync(DOCS, `${text.slice(0, start)}${section}${next === -1 ? '' : text.slice(next)}`);
}

if (!(await serveChildJob(JOB_VARIABLE, runLoad))) await main();
