import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { testEnvelope } from '../ingest/test-fixtures.ts';
import { TEST_ENCRYPTION_KEY, seedProject } from '../../test/helpers/app.ts';
import { startServerProcess } from '../../test/helpers/server-process.ts';
import { freePort } from '../../test/helpers/free-port.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded.ts';
import { migrate } from './migrate.ts';
import { createPool, type Pool } from './pool.ts';

/**
 * The real server (src/main.ts) under 8 ingesting clients while PostgreSQL cuts its connections:
 * pg_terminate_backend on every server connection, then a restart of PostgreSQL itself. A pooled
 * connection lost while checked out (a transaction between two statements) must fail its request
 * with 503 and leave the process alive; once the database answers again, ingestion resumes, and
 * every batch answered 202 is stored. The test runs a cluster of its own, since it restarts it.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const CLIENTS = 8;
const APPLICATION_NAME = 'jtrace-server';

let dataDir: string;
let pgPort: number;
let cluster: EmbeddedDatabase;
let pool: Pool;
let databaseUrl: string;
let apiKey: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'jtrace-connection-loss-'));
  pgPort = await freePort();
  cluster = await startEmbeddedPostgres({ dataDir, port: pgPort, fsync: false });
  databaseUrl = cluster.url;
  pool = createPool({ connectionString: databaseUrl, max: 2, statementTimeoutMs: 0, applicationName: 'connection-loss-test' });
  await migrate(pool);
  apiKey = (await seedProject(pool, keyring, 'cut')).apiKey;
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await pool?.end().catch(() => undefined);
  await cluster?.stop().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function startServer(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const server = await startServerProcess({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'fatal' });
  const { child } = server;
  child.on('exit', (code, signal) => {
    if (code !== 0 || signal !== null) child.emit('crashed', `exited with ${code ?? signal}: ${server.stderr().slice(-2_000)}`);
  });
  children.push(child);
  return server;
}

interface Load {
  stop(): Promise<void>;
  accepted: string[];
  /** Answers counted by route and status, e.g. `single 503`. */
  statuses: Map<string, number>;
  unanswered: number;
}

/**
 * CLIENTS senders of 20-event batches and CLIENTS senders of single events until stopped; every
 * answer's status is counted and every acknowledged event kept.
 */
function startLoad(baseUrl: string): Load {
  const http = new HttpPool(baseUrl, { connections: 2 * CLIENTS });
  let running = true;
  const load: Load = { accepted: [], statuses: new Map(), unanswered: 0, stop: async () => {} };
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
  const send = async (route: 'batch' | 'single') => {
    while (running) {
      const events = Array.from({ length: route === 'batch' ? 20 : 1 }, () => testEnvelope());
      try {
        const response = await http.request({
          path: route === 'batch' ? '/v1/events/batch' : '/v1/events', method: 'POST', headers,
          body: JSON.stringify(route === 'batch' ? { events } : events[0]),
        });
        const text = await response.body.text();
        const key = `${route} ${response.statusCode}`;
        load.statuses.set(key, (load.statuses.get(key) ?? 0) + 1);
        if (response.statusCode === 202 && route === 'single') load.accepted.push(events[0]!.event.id as string);
        if (response.statusCode === 202 && route === 'batch') {
          const body = JSON.parse(text) as { data: { results: Array<{ eventId: string; status: string }> } };
          // An event whose statement met a cut connection is refused with a retryable code (event
          // protocol 8): only the accepted ones are acknowledged.
          for (const result of body.data.results) if (result.status === 'accepted') load.accepted.push(result.eventId);
        }
        if (response.statusCode !== 202) await new Promise((resolve) => setTimeout(resolve, 20));
      } catch {
        load.unanswered++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const senders = [...Array.from({ length: CLIENTS }, () => send('batch')), ...Array.from({ length: CLIENTS }, () => send('single'))];
  load.stop = async () => {
    running = false;
    await Promise.all(senders);
    await http.destroy();
  };
  return load;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when a batch is accepted again, or rejects after the deadline. */
async function untilIngesting(baseUrl: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/events/batch`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ events: [testEnvelope()] }),
    }).catch(() => null);
    if (response?.status === 202) return;
    if (Date.now() > until) throw new Error(`ingestion did not come back (last answer ${response?.status ?? 'none'})`);
    await sleep(200);
  }
}

async function expectStored(ids: string[]): Promise<void> {
  const stored = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE id = ANY($1)', [ids]);
  expect(stored.rows[0]!.n).toBe(ids.length);
}

/** Answers other than 202 and 503, with their counts: a 500 would be a lost connection misreported. */
const unexpected = (load: Load) => [...load.statuses].filter(([key]) => !key.endsWith(' 202') && !key.endsWith(' 503'));
const outages = (load: Load) => (load.statuses.get('batch 503') ?? 0) + (load.statuses.get('single 503') ?? 0);

/** Fails the test the moment the server process dies, with what it printed. */
function watchCrash(child: ChildProcess): { crash: string | null } {
  const watch = { crash: null as string | null };
  child.on('crashed', (why: string) => (watch.crash = why));
  return watch;
}

describe('a server whose database connections are cut while it ingests', () => {
  it('survives pg_terminate_backend of every connection, answering 503 meanwhile, and recovers', async () => {
    const { child, baseUrl } = await startServer();
    const watch = watchCrash(child);
    const load = startLoad(baseUrl);
    await sleep(500);
    let terminated = 0;
    const admin = new pg.Client(databaseUrl);
    await admin.connect();
    try {
      for (let round = 0; round < 40 && watch.crash === null; round++) {
        const result = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
          [APPLICATION_NAME],
        );
        terminated += result.rowCount ?? 0;
        await sleep(50);
      }
    } finally {
      await admin.end();
    }
    await sleep(500);
    await load.stop();
    expect(watch.crash).toBeNull();
    expect(terminated).toBeGreaterThan(20);
    // Cut connections fail their own requests with 503 (or the batch is retried on a new
    // connection and accepted), never 500, and never take the process down.
    expect(unexpected(load)).toEqual([]);
    expect(load.unanswered).toBe(0);
    await untilIngesting(baseUrl, 10_000);
    expect(watch.crash).toBeNull();
    await expectStored(load.accepted);
    child.kill('SIGTERM');
  }, 120_000);

  it('survives a restart of PostgreSQL under load, answering 503 while it is down, and recovers', async () => {
    const { child, baseUrl } = await startServer();
    const watch = watchCrash(child);
    const load = startLoad(baseUrl);
    await sleep(500);
    await cluster.stop();
    const whileDown = outages(load);
    await sleep(1_000);
    const health = await fetch(`${baseUrl}/health`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${baseUrl}/ready`);
    expect(ready.status).toBe(503);
    cluster = await startEmbeddedPostgres({ dataDir, port: pgPort, fsync: false });
    await untilIngesting(baseUrl, 30_000);
    await sleep(300);
    await load.stop();
    expect(watch.crash).toBeNull();
    expect(outages(load)).toBeGreaterThan(whileDown);
    expect(unexpected(load)).toEqual([]);
    await expectStored(load.accepted);
    child.kill('SIGTERM');
  }, 180_000);
});
