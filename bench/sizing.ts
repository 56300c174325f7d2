// What a million events cost the database in disk and CPU (npm run bench:sizing; not a test):
// the figures docs/deployment.md sizes an installation from. One embedded PostgreSQL (default
// settings, fsync on; bench/bench-server.ts), BENCH_SIZING_EVENTS (default 200,000) events of the
// ingestion benchmark's shape sent as 100-event batches by 8 clients from a child process (25
// new journeys of four ~1 KB steps per batch, two aliases per journey; bench/ingest-load.ts),
// then the findings analyzer run until no journey is pending, as a worker instance runs it.
// Measured: the on-disk size of each table with its indexes and TOAST (pg_total_relation_size,
// every day partition of events summed), the WAL written, and the CPU of the server process and
// of every PostgreSQL process (bench/process-cpu.ts) for ingestion and for the analysis, each
// scaled to a million events. Prints them and replaces `## Sizing` of docs/benchmarks.md.

import os from 'node:os';
import pino from 'pino';
import { startAnalyzer } from '../src/findings/analyzer.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { startBenchServer } from './bench-server.ts';
import { replaceDocsSection } from './docs-section.ts';
import { BATCH_SIZE, inChild } from './ingest-load.ts';
import { postmasterPid, startCpuCount } from './process-cpu.ts';

const EVENTS = Number(process.env.BENCH_SIZING_EVENTS ?? 200_000);
const CLIENTS = 8;
const MILLION = 1_000_000;

/** Tables by what they hold; events and its day partitions count as one. */
const TABLES = ['events', 'event_ids', 'journeys', 'journey_aliases', 'search_tokens', 'journey_findings', 'journey_findings_pending'];

const mib = (bytes: number) => bytes / 1024 / 1024;
const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main(): Promise<void> {
  const server = await startBenchServer();
  try {
    const { pool } = server;
    const postmaster = await postmasterPid(pool);
    const lsn = async () => (await pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
    const walBytes = async (from: string) =>
      Number((await pool.query<{ n: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint AS n', [from])).rows[0]!.n);

    // Ingestion: the load alone, the analyzer not yet running (its marks wait in journey_findings_pending).
    const walStart = await lsn();
    const ingestCpu = startCpuCount(postmaster);
    const batches = Math.ceil(EVENTS / BATCH_SIZE);
    const started = performance.now();
    // The phase limit of the load generator is 180 s: send in rounds until every batch is in.
    let done = 0;
    while (done < batches) {
      const result = await inChild({ baseUrl: server.baseUrl, apiKey: server.apiKey, mode: 'batch', clients: CLIENTS, warmup: 0, count: batches - done });
      if (result.failures > 0) throw new Error(`${result.failures} batches failed`);
      done += result.done;
      console.log(`${fmt(done * BATCH_SIZE)} events stored`);
    }
    const ingestSeconds = (performance.now() - started) / 1000;
    const ingest = ingestCpu.stop();
    const events = done * BATCH_SIZE;
    const ingestWal = await walBytes(walStart);

    // The analysis, as a worker runs it, until no journey is left pending.
    const analysisWalStart = await lsn();
    const analysisCpu = startCpuCount(postmaster);
    const analyzer = startAnalyzer({ pool, keyring: server.keyring, logger: pino({ level: 'silent' }), metrics: createMetrics() });
    const pendingCount = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journey_findings_pending')).rows[0]!.n;
    while ((await pendingCount()) > 0) await analyzer.drain();
    await analyzer.stop();
    const analysis = analysisCpu.stop();
    const analysisWal = await walBytes(analysisWalStart);

    // Row counts from fresh statistics; a plain VACUUM (no rewrite) as autovacuum would run it.
    // On a connection of its own without the pool's statement timeout, which it outlasts.
    const client = await pool.connect();
    try {
      await client.query('SET statement_timeout = 0');
      await client.query('VACUUM (ANALYZE)');
    } finally {
      client.release();
    }
    const sizes = await pool.query<{ name: string; bytes: string; rows: string }>(
      // pg_partition_tree lists nothing for a table that is not partitioned, hence the table itself
      // besides it; rows are counted on plain tables only (a partitioned parent has its own estimate).
      `WITH tables AS (
         SELECT t.name, c.oid, c.relkind, c.reltuples
           FROM unnest($1::text[]) AS t(name)
           JOIN pg_class c ON c.oid = t.name::regclass
                           OR c.oid IN (SELECT relid FROM pg_partition_tree(t.name::regclass)))
       SELECT name, sum(pg_total_relation_size(oid))::bigint AS bytes,
              sum(CASE WHEN relkind = 'r' AND reltuples > 0 THEN reltuples ELSE 0 END)::bigint AS rows
         FROM tables GROUP BY name ORDER BY array_position($1::text[], name)`,
      [TABLES],
    );
    const database = Number((await pool.query<{ n: string }>('SELECT pg_database_size(current_database())::bigint AS n')).rows[0]!.n);
    const perMillion = MILLION / events;
    const journeys = Number(sizes.rows.find((r) => r.name === 'journeys')!.rows);

    const tableRows = sizes.rows.map((r) => `| \`${r.name}\` | ${fmt(Number(r.rows))} | ${fmt(mib(Number(r.bytes)), 1)} MiB | ${fmt(mib(Number(r.bytes) * perMillion))} MiB |`);
    const total = sizes.rows.reduce((sum, r) => sum + Number(r.bytes), 0);
    const cpuRow = (what: string, sample: { serverMs: number; postgresMs: number | null }) =>
      `| ${what} | ${fmt((sample.serverMs / 1000) * perMillion)} s | ${sample.postgresMs === null ? 'n/a' : `${fmt((sample.postgresMs / 1000) * perMillion)} s`} |`;
    const section = [
      '## Sizing',
      '',
      `\`npm run bench:sizing\` (bench/sizing.ts; ${new Date().toISOString().slice(0, 10)}; ${os.cpus().length} cores shared with other work, load average`,
      `${os.loadavg()[0]!.toFixed(1)} at the end; PostgreSQL ${server.postgresVersion} embedded, default settings, fsync on).`,
      `${fmt(events)} events of the ingestion benchmark's shape (about 1.2 KB each as sent, \`redacted-payload\` capture,`,
      `${fmt(journeys)} journeys of four steps, two aliases each) sent as 100-event batches by ${CLIENTS} clients in ${fmt(ingestSeconds, 1)} s`,
      `(${fmt(events / ingestSeconds)} events/s on this shared machine), then analysed by the findings analyzer until no`,
      'journey was pending. Every step\'s output has another shape than its input, so each journey gets 35 findings:',
      'the worst case for the findings table. Figures scaled linearly to a million events.',
      '',
      '| Table (indexes and TOAST included) | Rows | Measured | Per million events |',
      '|---|---|---|---|',
      ...tableRows,
      `| **all of these** | | ${fmt(mib(total), 1)} MiB | **${fmt(mib(total * perMillion))} MiB** |`,
      `| whole database (\`pg_database_size\`) | | ${fmt(mib(database), 1)} MiB | |`,
      '',
      `WAL written: ${fmt(mib(ingestWal * perMillion))} MiB per million events by ingestion, ${fmt(mib(analysisWal * perMillion))} MiB by the analysis`,
      '(what a replica receives and what archiving keeps until the next base backup).',
      '',
      '| CPU per million events | jtrace process | PostgreSQL (all its processes) |',
      '|---|---|---|',
      cpuRow('ingestion (api,ingest instance)', ingest),
      cpuRow('findings analysis (worker instance)', analysis),
      '',
      'CPU is process time (`process.cpuUsage` and `/proc`, bench/process-cpu.ts), not wall time: it hardly depends',
      'on what else the machine runs. The load generator\'s own CPU is not counted.',
    ].join('\n');
    console.log(`\n${section}\n`);
    replaceDocsSection(new URL('../docs/benchmarks.md', import.meta.url), '## Sizing', section);
  } finally {
    await server.stop();
  }
}

await main();
