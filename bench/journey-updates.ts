// What journeys' three GIN indexes (services, label trigrams, label bigrams) cost a batch that
// continues stored journeys (npm run bench:journey-updates; not a test). Every such batch
// rewrites its journeys' summary rows, and since last_event_at is in the list indexes the update
// is never HOT: each GIN index gets the row's entries again, although services and label rarely
// change. One embedded PostgreSQL, two databases migrated alike, one of them without the three
// GIN indexes; BENCH_JOURNEYS (default 20,000) journeys with labels and services in each. Then
// batches of 25 random stored journeys (lock, summary update with the findings mark, COMMIT: the
// statements ingestion runs for them) go to each database in turn, the order rotating every
// round. Prints the median ms of the update statement and of the transaction, and the per-round
// ratio (with / without). BENCH_UPDATE_BATCHES (default 1,000) timed batches per database.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { lockJourneysFindEvents, summaryRecord, updateJourneys } from '../src/ingest/ingest-sql.ts';
import { freePort } from '../test/helpers/free-port.ts';

const JOURNEYS = Number(process.env.BENCH_JOURNEYS ?? 20_000);
const BATCHES = Number(process.env.BENCH_UPDATE_BATCHES ?? 1_000);
const PROJECT = '00000000-0000-4000-8000-000000000001';
const ENVIRONMENT = '00000000-0000-4000-8000-000000000002';
const GIN_INDEXES = ['journeys_services', 'journeys_label_trgm', 'journeys_label_bigrams'];

interface Timing { update: number; total: number }

async function touchJourneys(pool: Pool, ids: string[], round: number): Promise<Timing> {
  const client = await pool.connect();
  try {
    const t0 = performance.now();
    await client.query('BEGIN');
    const { locked } = await lockJourneysFindEvents(client, PROJECT, ids, []);
    // Four more events each, later than the last: what a batch continuing these journeys writes.
    const rows = [...locked.values()].map(({ id, state }) => summaryRecord(id, {
      ...state, eventCount: state.eventCount + 4, lastEventAtMs: state.lastEventAtMs + 1000 + round,
      lastStep: `step ${round % 7}`, lastStepKey: { timestampMs: state.lastEventAtMs + 1000 + round, receivedAtUs: Date.now() * 1000, eventId: `evt-${round}` },
    }));
    const t1 = performance.now();
    await updateJourneys(client, PROJECT, rows);
    const t2 = performance.now();
    await client.query('COMMIT');
    return { update: t2 - t1, total: performance.now() - t0 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * q)]!;
const median = (values: number[]) => quantile(values, 0.5);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jtrace-bench-journeys-'));
  const server = await startEmbeddedPostgres({ dataDir, port: await freePort(), fsync: false });
  const pools: Pool[] = [];
  const names = ['with the GIN indexes', 'without them'];
  try {
    for (const [i] of names.entries()) {
      const admin = new pg.Client(server.url);
      await admin.connect();
      await admin.query(`CREATE DATABASE journeys${i}`);
      await admin.end();
      const pool = createPool({ connectionString: Object.assign(new URL(server.url), { pathname: `/journeys${i}` }).toString(), max: 1, statementTimeoutMs: 0 });
      pools.push(pool);
      await migrate(pool);
      if (i === 1) for (const index of GIN_INDEXES) await pool.query(`DROP INDEX ${index}`);
      await pool.query(`INSERT INTO projects (id, slug, name) VALUES ($1, 'bench', 'Bench')`, [PROJECT]);
      await pool.query(`INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, $2, 'production', 30)`, [PROJECT, ENVIRONMENT]);
      // Labels like the SDK's examples (an order and a customer), services of two or three.
      await pool.query(
        `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, status, event_count, started_at, last_event_at,
            services, label, label_event_ts, label_event_received_at, label_event_id)
         SELECT $1, 'jrn_' || g, $2, 'order', 'v1.x', 'active', 4, now() - interval '1 day', now() - interval '1 day' + g * interval '1 ms',
            CASE WHEN g % 3 = 0 THEN ARRAY['gateway', 'checkout', 'billing'] ELSE ARRAY['gateway', 'checkout'] END,
            'Order ord-' || g || ' for customer ' || md5(g::text)::varchar(10), now() - interval '1 day', now() - interval '1 day', 'evt_' || g
           FROM generate_series(1, $3::int) g`,
        [PROJECT, ENVIRONMENT, JOURNEYS],
      );
      await pool.query('VACUUM ANALYZE');
    }
    const loadStart = os.loadavg()[0]!;
    const times: Timing[][] = names.map(() => []);
    for (let round = 0; round < BATCHES; round++) {
      const ids = new Set<string>();
      while (ids.size < 25) ids.add(`jrn_${1 + Math.floor(Math.random() * JOURNEYS)}`);
      for (let k = 0; k < names.length; k++) {
        const j = (round + k) % names.length;
        times[j]!.push(await touchJourneys(pools[j]!, [...ids], round));
      }
    }
    const loadEnd = os.loadavg()[0]!;
    const version = (await pools[0]!.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
    const sizes = await Promise.all(pools.map(async (pool) => (await pool.query<{ b: string }>(`SELECT pg_indexes_size('journeys') AS b`)).rows[0]!.b));
    console.log(`PostgreSQL ${version}, ${JOURNEYS} journeys, ${BATCHES} batches of 25 each; load average ${loadStart.toFixed(2)} to ${loadEnd.toFixed(2)}\n`);
    console.log('| journeys | update statement, median ms | p99 ms | transaction, median ms | paired: update (with / this) | paired: transaction | journeys indexes, MB |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const [j, name] of names.entries()) {
      const t = times[j]!;
      const paired = (pick: (x: Timing) => number) => median(t.map((x, i) => pick(times[0]![i]!) / pick(x))).toFixed(2);
      console.log(`| ${name} | ${median(t.map((x) => x.update)).toFixed(2)} | ${quantile(t.map((x) => x.update), 0.99).toFixed(2)} | ${median(t.map((x) => x.total)).toFixed(2)} | ${paired((x) => x.update)} | ${paired((x) => x.total)} | ${(Number(sizes[j]) / 1e6).toFixed(1)} |`);
    }
  } finally {
    for (const pool of pools) await pool.end().catch(() => {});
    await server.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
