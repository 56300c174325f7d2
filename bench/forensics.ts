// Journey forensics benchmark (npm run bench:forensics; not a test). Starts its own embedded
// PostgreSQL in a temporary directory, migrates, ingests journeys of 100 and 1,000 events with
// payloads of about 1 KB through the batch route, then times the three forensics routes through
// app.inject and replaces the `## Journey forensics` section of docs/benchmarks.md.
// BENCH_REQUESTS sets the timed requests per scenario (100), BENCH_SIZES the journey sizes (100,1000).
// Then "what changed" alone on a journey of 5,000 events (BENCH_LONG_EVENTS), BENCH_LONG_REQUESTS
// (10) times: the Node CPU of one such request, which forensic fairness is measured against.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { readJourneyPayloads } from '../src/query/journey-payloads.ts';
import { compareJourneys } from '../src/forensics/compare-journeys.ts';
import { parseFieldPath, type PathSegment } from '../src/forensics/field-path.ts';
import { followField } from '../src/forensics/follow-field.ts';
import { listJourneyChanges } from '../src/forensics/journey-changes.ts';
import { freePort } from '../test/helpers/free-port.ts';
import { percentiles, writeSection, type Timing } from './query-report.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const WARMUP = 10;
const SIZES = (process.env.BENCH_SIZES ?? '100,1000').split(',').filter(Boolean).map(Number);
const LONG_EVENTS = Number(process.env.BENCH_LONG_EVENTS ?? 5_000);
const LONG_REQUESTS = Number(process.env.BENCH_LONG_REQUESTS ?? 10);
/** p95 targets in ms by journey size (issue: 20 ms and 100 ms at 1,000 events). */
const TARGETS: Record<number, number> = { 100: 20, 1_000: 100 };
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdefghijklmnop';
const SERVICES = ['webhook', 'contacts', 'crm', 'queue', 'queue', 'worker'];
type App = Awaited<ReturnType<typeof buildApp>>;

/** The record at step k: about 1 KB of JSON; each step edits one line item. */
function record(k: number, keepPhone: boolean) {
  const items = Array.from({ length: 8 }, (_, i) => ({
    sku: `SKU-${1000 + i}`,
    qty: i === k % 8 ? k : 1,
    price: 19.99 + i,
    description: `Line item ${i}: a plain description of what was ordered`,
  }));
  const customer = { name: 'Ada Lovelace', email: 'ada@example.com', ...(keepPhone ? { phone: '+44 20 7946 0018' } : {}) };
  return { customer, address: { street: '12 Analytical Row', city: 'London', zip: 'N1 9GU', country: 'GB' }, items, step: k };
}

/** Journey b loses the phone halfway and swaps two steps at three quarters; a keeps everything. */
function journeyEvents(journeyId: string, size: number, variant: 'a' | 'b', startMs: number) {
  const order = Array.from({ length: size }, (_, i) => i);
  if (variant === 'b') [order[(size * 3) / 4], order[(size * 3) / 4 + 1]] = [order[(size * 3) / 4 + 1]!, order[(size * 3) / 4]!];
  return order.map((k, position) => ({
    protocolVersion: '0.1',
    event: {
      id: `${journeyId}-${position}`,
      journeyId,
      environment: 'production',
      service: SERVICES[k % SERVICES.length],
      entity: { type: 'contact', id: `contact-${journeyId}` },
      operation: 'transformed',
      name: `step-${k % 10}`,
      timestamp: new Date(startMs + position * 1000).toISOString(),
      durationMs: 5 + (k % 7),
      input: record(k, variant === 'a' || k <= size / 2),
      output: record(k + 1, variant === 'a' || k < size / 2),
    },
  }));
}

async function ingest(app: App, apiKey: string, envelopes: unknown[]): Promise<void> {
  for (let start = 0; start < envelopes.length; start += 100) {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/events/batch',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ events: envelopes.slice(start, start + 100) }),
    });
    if (response.statusCode !== 202) throw new Error(`ingest: ${response.statusCode} ${response.body.slice(0, 200)}`);
  }
}

/** Wall time of each run, and the median CPU time this process spent on one (PostgreSQL's excluded). */
async function time(run: () => Promise<unknown>, requests = REQUESTS, warmup = WARMUP): Promise<Timing & { cpu: number }> {
  const samples: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < warmup + requests; i++) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await run();
    if (i < warmup) continue;
    samples.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
  }
  return { ...percentiles(samples), cpu: percentiles(cpu).p50 };
}

async function get(app: App, url: string, headers: Record<string, string>): Promise<string> {
  const response = await app.inject({ method: 'GET', url, headers });
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
  return response.body;
}

interface Row {
  route: string;
  size: number;
  timing: Timing & { cpu: number };
  bytes: number;
}

async function measure(pool: Pool): Promise<{ rows: Row[]; payloadBytes: number; long: (Timing & { cpu: number }) | null }> {
  const keyring = createKeyring({ current: 'bench-encryption-key-0123456789abcdefghijklmnop' });
  const projectId = (await createProject(pool, 'bench', 'Benchmark')).id;
  const { apiKey } = await createApiKey(pool, keyring, { projectSlug: 'bench', environmentName: 'production', name: 'bench', defaultRetentionDays: 30 });
  const app = await buildApp({
    config: { ...loadConfig({}), replayAllowedHosts: [] },
    pool,
    keyring,
    adminToken: ADMIN_TOKEN,
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(pool),
    build: { version: '0.0.0', source: 'package' },
  });
  try {
    await app.ready();
    const startMs = Date.now() - 86_400_000;
    for (const size of SIZES) {
      await ingest(app, apiKey, journeyEvents(`jrn-${size}-a`, size, 'a', startMs));
      await ingest(app, apiKey, journeyEvents(`jrn-${size}-b`, size, 'b', startMs));
    }
    await pool.query('ANALYZE');
    const headers = { authorization: `Bearer ${apiKey}` };
    const rows: Row[] = [];
    const scope = { projectId, environmentId: null, environmentName: null };
    for (const size of SIZES) {
      // The read alone (one journey's rows and their JSON parsing), for the share of the SQL.
      const timing = await time(() => readJourneyPayloads(pool, scope, `jrn-${size}-b`, size));
      rows.push({ route: 'read the events (no HTTP)', size, timing, bytes: 0 });
      // The walks alone, on journeys already read: the CPU share of each route.
      const a = (await readJourneyPayloads(pool, scope, `jrn-${size}-a`, size))!;
      const b = (await readJourneyPayloads(pool, scope, `jrn-${size}-b`, size))!;
      const phone = parseFieldPath('customer.phone') as PathSegment[];
      rows.push({ route: 'follow a field (walk only)', size, timing: await time(async () => followField(b, phone)), bytes: 0 });
      rows.push({ route: 'what changed (walk only)', size, timing: await time(async () => listJourneyChanges(b)), bytes: 0 });
      rows.push({ route: 'compare (walk only)', size, timing: await time(async () => compareJourneys(a, b)), bytes: 0 });
      const routes: Array<[string, string]> = [
        ['follow a field', `/v1/journeys/jrn-${size}-b/fields?path=customer.phone`],
        ['what changed', `/v1/journeys/jrn-${size}-b/changes`],
        ['compare', `/v1/journeys/compare?a=jrn-${size}-a&b=jrn-${size}-b`],
      ];
      for (const [route, url] of routes) {
        const bytes = (await get(app, url, headers)).length;
        const timing = await time(() => get(app, url, headers));
        rows.push({ route, size, timing, bytes });
        console.log(`${route.padEnd(16)} ${String(size).padStart(5)} events  p50 ${timing.p50.toFixed(1)}  p95 ${timing.p95.toFixed(1)}  p99 ${timing.p99.toFixed(1)} ms  cpu ${timing.cpu.toFixed(1)} ms  ${bytes} bytes`);
      }
    }
    let long: (Timing & { cpu: number }) | null = null;
    if (LONG_EVENTS > 0) {
      await ingest(app, apiKey, journeyEvents(`jrn-long-b`, LONG_EVENTS, 'b', startMs));
      await pool.query('ANALYZE');
      long = await time(() => get(app, '/v1/journeys/jrn-long-b/changes', headers), LONG_REQUESTS, 2);
      console.log(`what changed ${LONG_EVENTS} events  p50 ${long.p50.toFixed(1)} ms  cpu ${long.cpu.toFixed(1)} ms`);
    }
    return { rows, payloadBytes: JSON.stringify(record(1, true)).length, long };
  } finally {
    await app.close();
  }
}

function render(rows: Row[], payloadBytes: number, loadAverage: [number, number], postgres: string): string {
  const ms = (value: number) => value.toFixed(1);
  const table = rows.map((row) => {
    const target = TARGETS[row.size]!;
    const verdict = row.timing.p95 <= target ? 'met' : 'missed';
    return `| ${row.route} | ${row.size.toLocaleString('en')} | ${ms(row.timing.p50)} | ${ms(row.timing.p95)} | ${ms(row.timing.p99)} | ${ms(row.timing.cpu)} | ${row.bytes === 0 ? '—' : `${(row.bytes / 1024).toFixed(0)} KiB`} | ${row.bytes === 0 ? '—' : `${target} ms (${verdict})`} |`;
  });
  return [
    '## Journey forensics',
    '',
    `Measured on ${new Date().toISOString().slice(0, 10)} with \`npm run bench:forensics\` (bench/forensics.ts).`,
    `Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB memory, Node ${process.version}, PostgreSQL ${postgres}.`,
    `Load average ${loadAverage[0].toFixed(1)} when the timing began and ${loadAverage[1].toFixed(1)} at its end: other work shared the machine.`,
    `Embedded PostgreSQL (fsync off, default settings) in a temporary directory; journeys ingested through the batch route`,
    `(input and output of about ${payloadBytes} bytes each, every step edits one of eight line items, journey b loses`,
    `\`customer.phone\` halfway and swaps two steps); each route timed through \`app.inject\` with an API key,`,
    `${REQUESTS} requests after ${WARMUP} warm-up ones, one at a time. Times in ms, the whole request (credential, SQL, walk, JSON);`,
    `"Node CPU" is the CPU time this process spent per request (PostgreSQL's own excluded), which a shared machine inflates less`,
    `than the wall times. Node runs with the server's \`${process.execArgv.filter((flag) => flag.startsWith('--max-semi')).join(' ') || 'default heap settings'}\` (docs/operations.md, "Memory").`,
    '',
    '| Route | Events | p50 | p95 | p99 | Node CPU, p50 | Answer | p95 target |',
    '|---|---|---|---|---|---|---|---|',
    ...table,
    '',
    '- Every route reads the journey in one statement on `events_timeline` and walks it in memory: the cost grows with the',
    '  events and their payload size. The compare figures read two journeys and diff every aligned pair of inputs and outputs.',
  ].join('\n');
}

const LONG_SECTION = '## Journey forensics: what changed on a long journey';

function renderLong(long: Timing & { cpu: number }, loadAverage: [number, number]): string {
  const ms = (value: number) => value.toFixed(1);
  return [
    LONG_SECTION,
    '',
    `Measured on ${new Date().toISOString().slice(0, 10)} with \`npm run bench:forensics\` (bench/forensics.ts), same machine and set-up as above;`,
    `load average ${loadAverage[0].toFixed(1)} when the timing began and ${loadAverage[1].toFixed(1)} at its end.`,
    `"What changed" on a journey of ${LONG_EVENTS.toLocaleString('en')} events shaped as journey b, ${LONG_REQUESTS} requests after 2 warm-up ones, one at a time:`,
    '',
    '| Node CPU, p50 | Wall p50 | Wall p95 |',
    '|---|---|---|',
    `| ${ms(long.cpu)} ms | ${ms(long.p50)} ms | ${ms(long.p95)} ms |`,
    '',
    '- This is the work one forensic slot holds (docs/forensics.md, "Fairness and limits"): each caller runs one such read at a',
    '  time, and a read whose client left stops at its next pause.',
  ].join('\n');
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jtrace-bench-forensics-'));
  let server: EmbeddedDatabase | null = null;
  let pool: Pool | null = null;
  try {
    server = await startEmbeddedPostgres({ dataDir, port: await freePort(), fsync: false });
    pool = createPool({ connectionString: server.url, max: 10, statementTimeoutMs: 15_000, applicationName: 'jtrace-bench' });
    await migrate(pool);
    const loadBefore = os.loadavg()[0]!;
    const { rows, payloadBytes, long } = await measure(pool);
    const postgres = (await pool.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
    const loads: [number, number] = [loadBefore, os.loadavg()[0]!];
    const docs = new URL('../docs/benchmarks.md', import.meta.url);
    // BENCH_SIZES= (empty) measures the long journey alone and leaves the table above as it was.
    if (rows.length > 0) {
      const section = render(rows, payloadBytes, loads, postgres);
      console.log(`\n${section}`);
      writeSection(docs, '## Journey forensics', section);
    }
    if (long !== null) {
      const section = renderLong(long, loads);
      console.log(`\n${section}`);
      writeSection(docs, LONG_SECTION, section);
    }
  } finally {
    await pool?.end().catch(() => {});
    await server?.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
