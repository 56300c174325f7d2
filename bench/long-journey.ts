// Very long journeys benchmark (npm run bench:long-journey; not a test). Starts its own embedded
// PostgreSQL in a temporary directory, migrates, creates journeys through the batch route among a
// thousand short ones, takes the statistics, then grows one to BENCH_LONG_JOURNEY_EVENTS (200,000)
// events in one statement (src/query/test-long-journey.ts), a second one as long for the
// comparison, and a third to BENCH_LONG_JOURNEY_ALIASES (200,000) aliases, then reads them
// through every read route that takes a journey: the time of each (median of BENCH_REQUESTS, 5)
// and the most memory the Node heap held above its level before the request (sampled every
// millisecond, and once more with the answer in hand). Prints the table; docs/operations.md,
// "Very long journeys", keeps the figures.
// Run with node --expose-gc (the npm script does) so that every request starts from a collected heap.

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
import { encodeTimelineCursor } from '../src/query/cursor.ts';
import { addAliases, growJourney } from '../src/query/test-long-journey.ts';
import { freePort } from '../test/helpers/free-port.ts';

const EVENTS = Number(process.env.BENCH_LONG_JOURNEY_EVENTS ?? 200_000);
const ALIASES = Number(process.env.BENCH_LONG_JOURNEY_ALIASES ?? 200_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5);
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdefghijklmnop';
const FIRST_MS = Date.parse('2026-01-01T00:00:00.000Z');
type App = Awaited<ReturnType<typeof buildApp>>;
const gc = (globalThis as { gc?: () => void }).gc;

async function seed(app: App, apiKey: string, journeyId: string): Promise<void> {
  const events = [0, 1].map((i) => ({
    protocolVersion: '0.1',
    event: {
      id: `${journeyId}-seed-${i}`, journeyId, environment: 'production', service: 'webhook', entity: { type: 'contact', id: `contact-${journeyId}` },
      operation: 'received', name: 'receive', timestamp: new Date(FIRST_MS - 10_000 + i).toISOString(), aliases: { email: 'ada@example.com' },
      input: { contact: { name: 'Ada Lovelace' } }, output: { customer: { name: 'Ada Lovelace' } },
    },
  }));
  const response = await app.inject({ method: 'POST', url: '/v1/events/batch', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, payload: JSON.stringify({ events }) });
  if (response.statusCode !== 202) throw new Error(`seed: ${response.statusCode} ${response.body.slice(0, 200)}`);
}

interface Measure {
  route: string;
  ms: number;
  heapMiB: number;
  bytes: number;
  note: string;
}

/** Median wall time and largest heap growth over the requests; the answer's size and a note read from it. */
async function measure(app: App, route: string, url: string, headers: Record<string, string>, note: (body: string) => string = () => ''): Promise<Measure> {
  const times: number[] = [];
  let peak = 0;
  let body = '';
  for (let i = 0; i < REQUESTS + 1; i++) {
    gc?.();
    const base = process.memoryUsage().heapUsed;
    let high = base;
    const sampler = setInterval(() => {
      high = Math.max(high, process.memoryUsage().heapUsed);
    }, 1);
    const started = performance.now();
    const response = await app.inject({ method: 'GET', url, headers });
    const elapsed = performance.now() - started;
    high = Math.max(high, process.memoryUsage().heapUsed);
    clearInterval(sampler);
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    body = response.body;
    if (i === 0) continue; // warm-up: plans, statistics, code
    times.push(elapsed);
    peak = Math.max(peak, high - base);
  }
  times.sort((x, y) => x - y);
  const result = { route, ms: times[Math.floor(times.length / 2)]!, heapMiB: peak / 2 ** 20, bytes: body.length, note: note(body) };
  console.log(`${route.padEnd(40)} ${result.ms.toFixed(1).padStart(9)} ms ${result.heapMiB.toFixed(1).padStart(7)} MiB ${String(result.bytes).padStart(10)} bytes ${result.note}`);
  return result;
}

async function run(pool: Pool): Promise<Measure[]> {
  const keyring = createKeyring({ current: 'bench-encryption-key-0123456789abcdefghijklmnop' });
  const projectId = (await createProject(pool, 'bench', 'Benchmark')).id;
  const { apiKey } = await createApiKey(pool, keyring, { projectSlug: 'bench', environmentName: 'production', name: 'bench', defaultRetentionDays: 3650 });
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
    const received = Date.now() - 3_600_000;
    // The journeys are created among a thousand short ones and the statistics taken; then they
    // grow, as under a key that keeps feeding one journey between two ANALYZEs.
    for (const journeyId of ['jrn-long', 'jrn-long-2', 'jrn-aliases']) await seed(app, apiKey, journeyId);
    for (let i = 0; i < 10; i++) {
      const batch = Array.from({ length: 100 }, (_, k) => ({ protocolVersion: '0.1', event: { id: `short-${i}-${k}`, journeyId: `jrn-short-${i}-${k}`, environment: 'production', service: 'web', entity: { type: 'order', id: `o-${i}-${k}` }, operation: 'received', name: 'receive', timestamp: new Date(FIRST_MS).toISOString() } }));
      await app.inject({ method: 'POST', url: '/v1/events/batch', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, payload: JSON.stringify({ events: batch }) });
    }
    await pool.query('VACUUM ANALYZE');
    for (const [journeyId, prefix] of [['jrn-long', 'evt-a-'], ['jrn-long-2', 'evt-b-']] as const) {
      const started = performance.now();
      await growJourney(pool, projectId, journeyId, EVENTS, { prefix, firstTimestampMs: FIRST_MS, firstReceivedMs: received });
      console.log(`${journeyId}: ${EVENTS} events written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    // What a key can also make a journey gather: 1,000 aliases per event over 200 events.
    await addAliases(pool, keyring, projectId, 'jrn-aliases', ALIASES);
    const headers = { authorization: `Bearer ${apiKey}` };
    const at = (k: number) =>
      encodeURIComponent(encodeTimelineCursor({ timestampUs: BigInt(FIRST_MS + k * 1000) * 1000n, receivedAtUs: BigInt(received + k) * 1000n, eventId: `evt-a-${String(k).padStart(7, '0')}` }));
    const flag = (body: string) => (/"truncated":(true|\{"a":true)/.test(body) ? 'truncated' : '');
    const aliasNote = (body: string) => `${(JSON.parse(body) as { data: { aliases: unknown[] } }).data.aliases.length} aliases listed`;
    return [
      await measure(app, 'GET journey', '/v1/journeys/jrn-long', headers),
      await measure(app, `GET journey, ${ALIASES.toLocaleString('en')} aliases`, '/v1/journeys/jrn-aliases', headers, aliasNote),
      await measure(app, 'events, first page (100)', '/v1/journeys/jrn-long/events?limit=100', headers),
      await measure(app, 'events, page in the middle (100)', `/v1/journeys/jrn-long/events?limit=100&cursor=${at(EVENTS / 2)}`, headers),
      await measure(app, 'events, last page (100)', `/v1/journeys/jrn-long/events?limit=100&cursor=${at(EVENTS - 50)}`, headers),
      await measure(app, 'GET event', `/v1/events/evt-a-${String(EVENTS / 2).padStart(7, '0')}`, headers),
      await measure(app, 'follow a field', '/v1/journeys/jrn-long/fields?path=customer.phone', headers, flag),
      await measure(app, 'what changed', '/v1/journeys/jrn-long/changes', headers, flag),
      await measure(app, 'compare (both long)', '/v1/journeys/compare?a=jrn-long&b=jrn-long-2', headers, flag),
    ];
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  if (gc === undefined) console.warn('Run with node --expose-gc for comparable memory figures.');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jtrace-bench-long-journey-'));
  let server: EmbeddedDatabase | null = null;
  let pool: Pool | null = null;
  try {
    server = await startEmbeddedPostgres({ dataDir, port: await freePort(), fsync: false });
    pool = createPool({ connectionString: server.url, max: 10, statementTimeoutMs: 60_000, applicationName: 'jtrace-bench' });
    await migrate(pool);
    const load = os.loadavg()[0]!;
    const rows = await run(pool);
    console.log(`\n${EVENTS.toLocaleString('en')} events per journey; ${os.cpus().length} cores, Node ${process.version}; load average ${load.toFixed(1)} before, ${os.loadavg()[0]!.toFixed(1)} after.\n`);
    console.log('| Route | Median time | Heap held, most | Answer |');
    console.log('|---|---|---|---|');
    for (const row of rows) {
      console.log(`| ${row.route} | ${row.ms.toFixed(1)} ms | ${row.heapMiB.toFixed(1)} MiB | ${(row.bytes / 1024).toFixed(0)} KiB${row.note ? `, ${row.note}` : ''} |`);
    }
  } finally {
    await pool?.end().catch(() => {});
    await server?.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
