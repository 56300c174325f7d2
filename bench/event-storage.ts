// What each storage change of a batch's writes saves (npm run bench:event-storage; not a test).
// The last two variants share the current schema and differ only in how the events statement's
// rows travel (one JSON document, or array literals and JSON arrays per column), so comparing them is an A/B
// of that statement alone; `BENCH_STORAGE_VARIANTS=3,4` runs only those two.
// One embedded PostgreSQL, one database per schema variant: each migrated up to the migration
// that variant stops before, or fully. Batches of 100 new events (25 new journeys of four
// steps, two aliases each: the shape of bench:ingest) are written into each database in turn,
// the order rotating every round, so every variant meets the same machine load. Each batch is
// what storeEvents writes for new journeys: the journeys, aliases and search tokens statement,
// then the events statement, in one transaction. The statements of earlier schemas are kept
// here as they were; the current schema runs the product's own statements (ingest-sql.ts).
// Prints the median ms per batch and per statement, the ratio of each variant's rate to the
// first's, and the same ratio taken round by round (both batches written at the same moment);
// replaces the `## Event storage` section of docs/benchmarks.md.
//
// BENCH_STORAGE_BATCHES (default 300) timed batches per variant, after BENCH_STORAGE_PREFILL
// (default 300) untimed ones; BENCH_STORAGE_VARIANTS (comma-separated names, default all).

import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { createPool, type Pool, type PoolClient } from '../src/db/pool.ts';
import { insertEvents, insertJourneysAliasesTokens, summaryRecord, type EventRow, type TokenRow } from '../src/ingest/ingest-sql.ts';
import { computePayloadDiff } from '../src/protocol/payload-diff.ts';
import { freePort } from '../test/helpers/free-port.ts';
import { replaceDocsSection } from './docs-section.ts';
import { makeBatch } from './ingest-load.ts';

const BATCHES = Number(process.env.BENCH_STORAGE_BATCHES ?? 300);
const PREFILL = Number(process.env.BENCH_STORAGE_PREFILL ?? 300);
const PROJECT = '00000000-0000-4000-8000-000000000001';
const ENVIRONMENT = '00000000-0000-4000-8000-000000000002';
const TOKEN_KEY = randomBytes(32);
const KEY_ID = 'bench';

const token = (value: string) => createHmac('sha256', TOKEN_KEY).update(value).digest('hex');

interface Batch {
  journeys: Array<Parameters<typeof insertJourneysAliasesTokens>[2]['journeys'][number]>;
  aliases: Parameters<typeof insertJourneysAliasesTokens>[2]['aliases'];
  /** Entity id, journey id and alias tokens: the rows every variant writes. */
  journeyTokens: TokenRow[];
  /** Trace and span id tokens: rows before migration 0022, columns of event_ids since. */
  eventTokens: TokenRow[];
  events: EventRow[];
}

let serial = 0;
function batch(): Batch {
  const tag = `${process.pid.toString(36)}${(++serial).toString(36)}`;
  const envelopes = makeBatch(tag) as Array<{ event: Record<string, any> }>;
  const receivedUs = Date.now() * 1000;
  const out: Batch = { journeys: [], aliases: [], journeyTokens: [], eventTokens: [], events: [] };
  envelopes.forEach(({ event }, i) => {
    const ts = Date.parse(event.timestamp);
    if (!out.journeys.some((j) => j.id === event.journeyId)) {
      const state = {
        status: 'active' as const, eventCount: 4, startedAtMs: ts, lastEventAtMs: ts + 111, completedAtMs: null, services: ['gateway', 'checkout'],
        label: null, labelKey: null, lastStep: event.name, lastStepKey: { timestampMs: ts, receivedAtUs: receivedUs + i, eventId: event.id },
        failedStep: null, failedKey: null,
      };
      out.journeys.push({ ...summaryRecord(event.journeyId, state), environment_id: ENVIRONMENT, entity_type: 'order', entity_id_encrypted: `v1.${KEY_ID}.${randomBytes(40).toString('base64')}` });
      out.journeyTokens.push({ token: token(event.entity.id), journey_id: event.journeyId, kind: 'entity_id', key_id: KEY_ID });
      out.journeyTokens.push({ token: token(event.journeyId), journey_id: event.journeyId, kind: 'journey_id', key_id: KEY_ID });
    }
    for (const [type, value] of Object.entries((event.aliases ?? {}) as Record<string, string>)) {
      out.aliases.push({ ref: out.aliases.length + 1, journey_id: event.journeyId, alias_type: type, value_encrypted: `v1.${KEY_ID}.${randomBytes(40).toString('base64')}`,
        token: token(value), token_key_id: KEY_ID, displayable: type === 'stripeCustomer', display_value: type === 'stripeCustomer' ? value : null, loose: [] });
      out.journeyTokens.push({ token: token(value), journey_id: event.journeyId, kind: 'alias', key_id: KEY_ID });
    }
    out.eventTokens.push({ token: token(event.traceId), journey_id: event.journeyId, kind: 'trace_id', key_id: KEY_ID });
    out.eventTokens.push({ token: token(event.spanId), journey_id: event.journeyId, kind: 'span_id', key_id: KEY_ID });
    out.events.push({
      id: event.id, journey_id: event.journeyId, environment_id: ENVIRONMENT, operation: event.operation, name: event.name, service: event.service,
      ts_ms: ts, received_us: receivedUs + i, duration_ms: event.durationMs, parent_event_id: null, trace_id: event.traceId, span_id: event.spanId,
      trace_token: token(event.traceId), span_token: token(event.spanId), search_key_id: KEY_ID, message_id: null, correlation_id: null, has_input: true, has_output: true, has_error: false, input_payload: event.input,
      output_payload: event.output, payload_diff: computePayloadDiff(event.input, event.output), error: null, runtime_metadata: event.runtime, deployment_metadata: null,
      custom_metadata: event.metadata, stated_alias_ids: [], content_hash: randomBytes(32).toString('hex'), content_hash_key_id: KEY_ID,
    });
  });
  return out;
}

const EVENT_RECORD = `r(id text, journey_id text, environment_id uuid, operation text, name text, service text,
  ts_ms int8, received_us int8, duration_ms int, parent_event_id text, trace_id text, span_id text, message_id text,
  correlation_id text, has_input boolean, has_output boolean, has_error boolean, input_payload jsonb, output_payload jsonb,
  payload_diff jsonb, error jsonb, runtime_metadata jsonb, deployment_metadata jsonb, custom_metadata jsonb,
  stated_alias_ids int8[], content_hash text, content_hash_key_id text)`;
const COLUMNS = `project_id, id, journey_id, environment_id, operation, name, service, event_timestamp, received_at,
  duration_ms, parent_event_id, trace_id, span_id, message_id, correlation_id, has_input, has_output, has_error,
  input_payload, output_payload, payload_diff, error, runtime_metadata, deployment_metadata, custom_metadata,
  stated_alias_ids, content_hash, content_hash_key_id`;
const VALUES = `$1, r.id, r.journey_id, r.environment_id, r.operation, r.name, r.service,
  timestamptz 'epoch' + r.ts_ms * interval '1 millisecond', timestamptz 'epoch' + r.received_us * interval '1 microsecond',
  r.duration_ms, r.parent_event_id, r.trace_id, r.span_id, r.message_id, r.correlation_id, r.has_input, r.has_output, r.has_error,
  r.input_payload, r.output_payload, r.payload_diff, r.error, r.runtime_metadata, r.deployment_metadata, r.custom_metadata,
  r.stated_alias_ids, r.content_hash, r.content_hash_key_id`;

/** The events statement before migration 0020: the statement trigger wrote event_ids. */
async function eventsByTrigger(client: PoolClient, rows: EventRow[]): Promise<void> {
  await client.query({ name: 'bench-events-trigger', text: `INSERT INTO events (${COLUMNS}) SELECT ${VALUES} FROM jsonb_to_recordset($2::jsonb) AS ${EVENT_RECORD}`, values: [PROJECT, JSON.stringify(rows)] });
}

/** The events statement of migrations 0020 and 0021 (the token columns of 0022 are left out): event_ids written by a CTE beside it. */
async function eventsWithIds(client: PoolClient, rows: EventRow[]): Promise<void> {
  await client.query({
    name: 'bench-events-ids',
    text: `WITH r AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS ${EVENT_RECORD}),
       ids AS (INSERT INTO event_ids (project_id, id, journey_id, received_at)
               SELECT $1, r.id, r.journey_id, timestamptz 'epoch' + r.received_us * interval '1 microsecond' FROM r)
     INSERT INTO events (${COLUMNS}) SELECT ${VALUES} FROM r`,
    values: [PROJECT, JSON.stringify(rows)],
  });
}

/** The events statement of migration 0022 as it was: rows as one JSON document, decoded by jsonb_to_recordset. */
async function eventsAsJson(client: PoolClient, rows: EventRow[]): Promise<void> {
  await client.query({
    name: 'bench-events-json',
    text: `WITH r AS (SELECT *, timestamptz 'epoch' + (ts_ms * 1000) * interval '1 microsecond' AS event_timestamp,
         timestamptz 'epoch' + received_us * interval '1 microsecond' AS received_at
         FROM jsonb_to_recordset($2::jsonb) AS ${EVENT_RECORD.replace('message_id text', 'trace_token text, span_token text, search_key_id text, message_id text')}),
       ids AS (INSERT INTO event_ids (project_id, id, journey_id, received_at, trace_token, span_token, search_key_id)
               SELECT $1, r.id, r.journey_id, r.received_at, r.trace_token, r.span_token, r.search_key_id FROM r)
     INSERT INTO events (${COLUMNS}) SELECT ${VALUES.replace(/timestamptz 'epoch' \+ r\.ts_ms[^,]*, timestamptz 'epoch' \+ r\.received_us[^,]*,/, 'r.event_timestamp, r.received_at,')} FROM r`,
    values: [PROJECT, JSON.stringify(rows)],
  });
}

interface Variant {
  name: string;
  /** Migrated up to, not including, this version; null: every migration. */
  before: number | null;
  /** Token rows of trace and span ids (before migration 0022). */
  eventTokenRows: boolean;
  events: (client: PoolClient, rows: EventRow[]) => Promise<void>;
}

const VARIANTS: Variant[] = [
  { name: 'event_ids by trigger (0017)', before: 20, eventTokenRows: true, events: eventsByTrigger },
  { name: 'event_ids in the statement (0020)', before: 21, eventTokenRows: true, events: eventsWithIds },
  { name: 'partitions with toast_tuple_target 8160 (0021)', before: 22, eventTokenRows: true, events: eventsWithIds },
  { name: 'trace and span tokens as columns of event_ids (0022)', before: null, eventTokenRows: false, events: eventsAsJson },
  { name: 'events as array literals, payloads as JSON arrays', before: null, eventTokenRows: false, events: (client, rows) => insertEvents(client, PROJECT, rows) },
];

interface Timing { total: number; tokens: number; events: number; eventsCpu: number }

async function writeBatch(pool: Pool, variant: Variant): Promise<Timing> {
  const data = batch();
  const client = await pool.connect();
  try {
    const t0 = performance.now();
    await client.query('BEGIN');
    await insertJourneysAliasesTokens(client, PROJECT, {
      journeys: data.journeys,
      aliases: data.aliases,
      newJourneyTokens: variant.eventTokenRows ? [...data.journeyTokens, ...dedupe(data.eventTokens)] : data.journeyTokens,
      storedJourneyTokens: [],
    });
    const t1 = performance.now();
    const cpu = process.cpuUsage();
    await variant.events(client, data.events);
    const t2 = performance.now();
    const used = process.cpuUsage(cpu);
    await client.query('COMMIT');
    return { total: performance.now() - t0, tokens: t1 - t0, events: t2 - t1, eventsCpu: (used.user + used.system) / 1000 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** A trace id repeats within a journey in real traffic; here each is new, so this only guards the key. */
function dedupe(tokens: TokenRow[]): TokenRow[] {
  const seen = new Set<string>();
  return tokens.filter((t) => {
    const key = `${t.token} ${t.journey_id} ${t.kind}`;
    return !seen.has(key) && (seen.add(key), true);
  });
}

async function migrateBefore(pool: Pool, version: number | null): Promise<void> {
  if (version === null) {
    await migrate(pool);
    return;
  }
  await pool.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const migration of listMigrations().filter((m) => m.version < version)) {
    await pool.query(migration.sql);
    await pool.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
  }
}

/**
 * What search pays to find a journey by trace id: the token probe of the search statement, by
 * the same 300 trace ids in every variant, in turns. Before 0022 one probe of search_tokens;
 * since, that and one probe of each token column's index of event_ids.
 */
async function searchProbes(pools: Pool[], variants: Variant[]): Promise<number[]> {
  const ids = (await pools[0]!.query<{ trace_id: string }>('SELECT trace_id FROM events ORDER BY random() LIMIT 300')).rows.map((r) => r.trace_id);
  const times: number[][] = variants.map(() => []);
  for (const id of ids) {
    for (const [j, variant] of variants.entries()) {
      const sql = variant.eventTokenRows
        ? 'SELECT t.journey_id FROM search_tokens t WHERE t.project_id = $1 AND t.token = ANY($2::text[])'
        : `SELECT t.journey_id FROM search_tokens t WHERE t.project_id = $1 AND t.token = ANY($2::text[])
           UNION ALL SELECT e.journey_id FROM event_ids e WHERE e.project_id = $1 AND e.trace_token = ANY($2::text[])
           UNION ALL SELECT e.journey_id FROM event_ids e WHERE e.project_id = $1 AND e.span_token = ANY($2::text[])`;
      const started = performance.now();
      await pools[j]!.query({ name: `bench-search-${j}`, text: sql, values: [PROJECT, [token(id)]] });
      times[j]!.push(performance.now() - started);
    }
  }
  return times.map(median);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const wanted = process.env.BENCH_STORAGE_VARIANTS?.split(',').map((s) => s.trim());
  const variants = wanted ? VARIANTS.filter((v, i) => wanted.includes(String(i)) || wanted.includes(v.name)) : VARIANTS;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jtrace-bench-storage-'));
  const server = await startEmbeddedPostgres({ dataDir, port: await freePort(), fsync: false });
  const pools: Pool[] = [];
  try {
    const url = (name: string) => Object.assign(new URL(server.url), { pathname: `/${name}` }).toString();
    // Variants of one schema share its database (they differ only in how a statement sends its
    // rows): both sides of that A/B then write into the same tables, at the same size.
    const bySchema = new Map<string, Pool>();
    for (const [i, variant] of variants.entries()) {
      const schema = `${variant.before} ${variant.eventTokenRows}`;
      const shared = bySchema.get(schema);
      if (shared) {
        pools.push(shared);
        continue;
      }
      const admin = new pg.Client(server.url);
      await admin.connect();
      await admin.query(`CREATE DATABASE variant${i}`);
      await admin.end();
      const pool = createPool({ connectionString: url(`variant${i}`), max: 1, statementTimeoutMs: 0 });
      pools.push(pool);
      bySchema.set(schema, pool);
      await migrateBefore(pool, variant.before);
      await pool.query(`INSERT INTO projects (id, slug, name) VALUES ($1, 'bench', 'Bench')`, [PROJECT]);
      await pool.query(`INSERT INTO environments (project_id, id, name, retention_days) VALUES ($1, $2, 'production', 30)`, [PROJECT, ENVIRONMENT]);
    }
    console.log(`Variants: ${variants.map((v) => v.name).join('; ')}. Prefill ${PREFILL} batches each.`);
    for (let i = 0; i < PREFILL; i++) for (const [j, variant] of variants.entries()) await writeBatch(pools[j]!, variant);
    for (const pool of new Set(pools)) await pool.query('VACUUM ANALYZE');
    const loadStart = os.loadavg()[0]!;
    const times: Timing[][] = variants.map(() => []);
    for (let i = 0; i < BATCHES; i++) {
      // Rotating who goes first, so no variant always meets a warmer cache.
      for (let k = 0; k < variants.length; k++) {
        const j = (i + k) % variants.length;
        times[j]!.push(await writeBatch(pools[j]!, variants[j]!));
      }
    }
    const probes = await searchProbes(pools, variants);
    const loadEnd = os.loadavg()[0]!;
    const version = (await pools[0]!.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
    const bytes: number[] = [];
    const rowBytes: number[] = [];
    for (const pool of pools) {
      const size = await pool.query<{ bytes: string; events: string; row: string }>(
        `SELECT (SELECT sum(pg_total_relation_size(c.oid)) FROM jtrace_event_partitions() p JOIN pg_class c ON c.relname = p.name) AS bytes,
                (SELECT count(*) FROM events) AS events, (SELECT avg(pg_column_size(e.*)) FROM events e) AS row`,
      );
      bytes.push(Number(size.rows[0]!.bytes) / Number(size.rows[0]!.events));
      rowBytes.push(Number(size.rows[0]!.row));
    }
    const base = median(times[0]!.map((t) => t.total));
    const rows = variants.map((variant, j) => {
      const t = times[j]!;
      const total = median(t.map((x) => x.total));
      // Paired within each round (same moment, same load): the median of first / this variant.
      const paired = (pick: (x: Timing) => number) => median(t.map((x, i) => pick(times[0]![i]!) / pick(x))).toFixed(2);
      return `| ${variant.name} | ${total.toFixed(2)} | ${median(t.map((x) => x.tokens)).toFixed(2)} | ${median(t.map((x) => x.events)).toFixed(2)} | ${median(t.map((x) => x.eventsCpu)).toFixed(2)} | ${(base / total).toFixed(2)} | ${paired((x) => x.total)} | ${paired((x) => x.events)} | ${Math.round(bytes[j]!).toLocaleString('en')} | ${Math.round(rowBytes[j]!).toLocaleString('en')} | ${probes[j]!.toFixed(2)} |`;
    });
    const section = `## Event storage

What each storage change costs or saves one batch's writes: 100 new events (25 new journeys of
four steps, two aliases each), written as ingestion writes them (the journeys, aliases and search
tokens statement, then the events statement, then COMMIT) into one database per schema, in
turns. ${BATCHES} batches per variant after ${PREFILL} untimed ones, on one PostgreSQL ${version}
(embedded, fsync off); ${os.cpus().length} CPUs, load average ${loadStart.toFixed(2)} at the start and
${loadEnd.toFixed(2)} at the end (${new Date().toISOString().slice(0, 10)}). \`npm run bench:event-storage\`.

| schema | median ms per batch | journeys, aliases, tokens | events | events: Node CPU | rate relative to the first | paired: batch | paired: events statement | bytes per event (events, its indexes and TOAST) | stored row, bytes | search probe by trace id, ms |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}
`;
    console.log(`\n${section}`);
    if (!wanted) replaceDocsSection(new URL('../docs/benchmarks.md', import.meta.url), '## Event storage', section);
  } finally {
    for (const pool of new Set(pools)) await pool.end().catch(() => {});
    await server.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

