// What day partitions of events cost ingestion (npm run bench:partitions; not a test). One
// embedded PostgreSQL, two databases: one migrated up to the schema before migration 0017 (one
// events table, unique on (project_id, id)), one fully migrated (day partitions, event_ids and
// its rows). Both hold the same journeys; batches of 100 new events go into each in turn,
// each batch as ingestion writes it (the duplicate probe, then the INSERT, in one transaction),
// so both sides see the same machine load. Prints ms per batch and the ratio, and replaces the
// `## Event partitions` section of docs/benchmarks.md. BENCH_PARTITION_BATCHES (default 400)
// batches per side; BENCH_PARTITION_PREFILL (default 200,000) events stored before timing.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { insertEvents, lockJourneysFindEvents, type EventRow } from '../src/ingest/ingest-sql.ts';
import { freePort } from '../test/helpers/free-port.ts';
import { replaceDocsSection } from './docs-section.ts';

const BATCHES = Number(process.env.BENCH_PARTITION_BATCHES ?? 400);
const PREFILL = Number(process.env.BENCH_PARTITION_PREFILL ?? 200_000);
const PROJECT = '00000000-0000-4000-8000-000000000001';
const ENVIRONMENT = '00000000-0000-4000-8000-000000000002';
const JOURNEYS = 10_000;

async function migrateBefore(pool: Pool, version: number): Promise<void> {
  await pool.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const migration of listMigrations().filter((m) => m.version < version)) {
    await pool.query(migration.sql);
    await pool.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
  }
}

async function seed(pool: Pool): Promise<void> {
  await pool.query(`INSERT INTO projects (id, slug, name) VALUES ($1, 'bench', 'Bench')`, [PROJECT]);
  await pool.query(`INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, $2, 'production', 30)`, [PROJECT, ENVIRONMENT]);
  await pool.query(
    `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, started_at, last_event_at)
     SELECT $1, 'jrn-' || n, $2, 'order', 'x', now(), now() FROM generate_series(1, $3::int) n`,
    [PROJECT, ENVIRONMENT, JOURNEYS],
  );
}

let serial = 0;
function batch(): EventRow[] {
  const nowUs = Date.now() * 1000;
  return Array.from({ length: 100 }, (_, i) => {
    const n = ++serial;
    return {
      id: `evt-${n}`, journey_id: `jrn-${1 + (n % JOURNEYS)}`, environment_id: ENVIRONMENT, operation: 'received', name: 'step',
      service: 'checkout', ts_ms: Math.floor(nowUs / 1000), received_us: nowUs + i, duration_ms: 12, parent_event_id: null,
      trace_id: `trace-${n}`, span_id: null, trace_token: null, span_token: null, search_key_id: null, message_id: null, correlation_id: null, has_input: true, has_output: false,
      has_error: false, input_payload: { orderId: n, amount: 12.5 }, output_payload: null, payload_diff: null, error: null,
      runtime_metadata: { language: 'node' }, deployment_metadata: null, custom_metadata: null, stated_alias_ids: [],
      content_hash: `h${n}`, content_hash_key_id: 'k',
    };
  });
}

/** The probe of the schema before 0017, which had no event_ids. */
async function findEventsFlat(db: Pool | pg.PoolClient, ids: string[]) {
  await db.query('SELECT id, journey_id, content_hash, content_hash_key_id FROM events WHERE project_id = $1 AND id = ANY($2::text[])', [PROJECT, ids]);
}

/** The events statement of the schema before 0017 (no event_ids, no token columns). */
async function insertEventsFlat(db: pg.PoolClient, rows: EventRow[]) {
  await db.query(
    `INSERT INTO events (project_id, id, journey_id, environment_id, operation, name, service, event_timestamp, received_at,
        duration_ms, trace_id, has_input, has_output, has_error, input_payload, runtime_metadata, stated_alias_ids,
        content_hash, content_hash_key_id)
     SELECT $1, r.id, r.journey_id, r.environment_id, r.operation, r.name, r.service, timestamptz 'epoch' + r.ts_ms * interval '1 millisecond',
        timestamptz 'epoch' + r.received_us * interval '1 microsecond', r.duration_ms, r.trace_id, r.has_input, r.has_output, r.has_error,
        r.input_payload, r.runtime_metadata, r.stated_alias_ids, r.content_hash, r.content_hash_key_id
       FROM jsonb_to_recordset($2::jsonb) AS r(id text, journey_id text, environment_id uuid, operation text, name text, service text,
        ts_ms int8, received_us int8, duration_ms int, trace_id text, has_input boolean, has_output boolean, has_error boolean,
        input_payload jsonb, runtime_metadata jsonb, stated_alias_ids int8[], content_hash text, content_hash_key_id text)`,
    [PROJECT, JSON.stringify(rows)],
  );
}

async function writeBatch(pool: Pool, partitioned: boolean): Promise<number> {
  const rows = batch();
  const client = await pool.connect();
  const started = performance.now();
  try {
    await client.query('BEGIN');
    if (partitioned) await lockJourneysFindEvents(client, PROJECT, [], rows.map((r) => r.id));
    else await findEventsFlat(client, rows.map((r) => r.id));
    if (partitioned) await insertEvents(client, PROJECT, rows);
    else await insertEventsFlat(client, rows);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jtrace-bench-partitions-'));
  const server = await startEmbeddedPostgres({ dataDir, port: await freePort(), fsync: false });
  const pools: Pool[] = [];
  try {
    const admin = new pg.Client(server.url);
    await admin.connect();
    await admin.query('CREATE DATABASE flat');
    await admin.query('CREATE DATABASE partitioned');
    await admin.end();
    const url = (name: string) => Object.assign(new URL(server.url), { pathname: `/${name}` }).toString();
    const flat = createPool({ connectionString: url('flat'), max: 2, statementTimeoutMs: 0 });
    const parts = createPool({ connectionString: url('partitioned'), max: 2, statementTimeoutMs: 0 });
    pools.push(flat, parts);
    await migrateBefore(flat, 17);
    await migrate(parts);
    for (const pool of [flat, parts]) await seed(pool);
    console.log(`Storing ${PREFILL.toLocaleString('en')} events in each database first`);
    for (let i = 0; i < PREFILL / 100; i++) {
      await writeBatch(flat, false);
      await writeBatch(parts, true);
    }
    for (const pool of [flat, parts]) await pool.query('VACUUM ANALYZE');
    const load = os.loadavg()[0]!;
    const times = { flat: [] as number[], partitioned: [] as number[] };
    for (let i = 0; i < BATCHES; i++) {
      // Alternating which goes first, so neither always meets a warmer cache.
      if (i % 2 === 0) {
        times.flat.push(await writeBatch(flat, false));
        times.partitioned.push(await writeBatch(parts, true));
      } else {
        times.partitioned.push(await writeBatch(parts, true));
        times.flat.push(await writeBatch(flat, false));
      }
    }
    const flatMs = median(times.flat);
    const partMs = median(times.partitioned);
    const version = (await flat.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
    const section = `## Event partitions

What the day partitions of events (migration 0017: partitioned events and the event_ids table,
written since migration 0020 by the statement that inserts the events) cost one ingestion batch's event writes: the duplicate probe
and the INSERT of 100 new events in one transaction, against the single events table before it.
${BATCHES} batches per side, taken in turns on one PostgreSQL ${version} (embedded, fsync off)
after ${PREFILL.toLocaleString('en')} events stored in each; ${os.cpus().length} CPUs, load average
${load.toFixed(2)} at the start (${new Date().toISOString().slice(0, 10)}). \`npm run bench:partitions\`.

| schema | median ms per batch | events/s (one client) |
| --- | ---: | ---: |
| one events table (before 0017) | ${flatMs.toFixed(2)} | ${Math.round(100_000 / flatMs).toLocaleString('en')} |
| day partitions + event_ids | ${partMs.toFixed(2)} | ${Math.round(100_000 / partMs).toLocaleString('en')} |

Ratio partitioned / single table: **${(flatMs / partMs).toFixed(2)}** of the event-write rate.
`;
    console.log(`\n${section}`);
    replaceDocsSection(new URL('../docs/benchmarks.md', import.meta.url), '## Event partitions', section);
  } finally {
    for (const pool of pools) await pool.end().catch(() => {});
    await server.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
