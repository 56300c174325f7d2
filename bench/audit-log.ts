// The audit log over large trails: a first page, a deep page, filtered pages and the CSV export
// (the reads of GET /v1/audit-log and /v1/audit-log.csv, called as the routes call them), and
// the retention sweep ageing a year-old slice out. Prints the figures and writes them to
// docs/benchmarks.md. Run: npm run bench:audit-log
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { readTrailForExport, readTrailPage } from '../src/audit-trail/audit-trail.ts';
import { parseAuditFilters, type AuditPosition } from '../src/audit-trail/filters.ts';
import { csvHeader, csvLine } from '../src/audit-trail/csv.ts';
import { startRetentionSweeper } from '../src/deletion/retention-sweep.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { createProject } from '../src/projects/projects-sql.ts';
import { startBenchServer } from './bench-server.ts';
import { replaceDocsSection } from './docs-section.ts';

const DOCS = new URL('../docs/benchmarks.md', import.meta.url);
const PROJECTS = 20;
const AUDIT_ROWS = 200_000;
const SETTINGS_ROWS = 100_000;
const ACCOUNT_ROWS = 50_000;
/** Rows are spread evenly over this many days before now. */
const SPAN_DAYS = 400;
const REPEATS = 15;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const server = await startBenchServer();
  try {
    const { pool } = server;
    await server.closeApp();
    const projectIds = [server.projectId];
    for (let i = 1; i < PROJECTS; i++) projectIds.push((await createProject(pool, `bench-${i}`, `Bench ${i}`)).id);
    const seedStarted = performance.now();
    await pool.query(
      `INSERT INTO audit_log (project_id, action, details, actor_kind, actor_email, client_address, created_at, updated_at)
       SELECT ($1::uuid[])[1 + n % $2], 'api_key.created', jsonb_build_object('keyPrefix', 'jtk_' || n), 'user', 'person' || (n % 50) || '@example.com', '203.0.113.7', t, t
         FROM generate_series(1, $3::int) AS n, LATERAL (SELECT now() - make_interval(secs => n * ($4::float8 * 86400 / $3))) AS c (t)`,
      [projectIds, PROJECTS, AUDIT_ROWS, SPAN_DAYS],
    );
    await pool.query(
      `INSERT INTO settings_changes (project_id, action, subject, before, after, actor_kind, actor_email, created_at)
       SELECT ($1::uuid[])[1 + n % $2], 'environment.updated', 'production', jsonb_build_object('retentionDays', 30), jsonb_build_object('retentionDays', 60),
              'user', 'person' || (n % 50) || '@example.com', now() - make_interval(secs => n * ($4::float8 * 86400 / $3))
         FROM generate_series(1, $3::int) AS n`,
      [projectIds, PROJECTS, SETTINGS_ROWS, SPAN_DAYS],
    );
    await pool.query(
      `INSERT INTO account_audit_log (action, details, actor_kind, actor_email, created_at)
       SELECT 'session.signed_in', '{"method":"password"}', 'user', 'person' || (n % 50) || '@example.com', now() - make_interval(secs => n * ($2::float8 * 86400 / $1))
         FROM generate_series(1, $1::int) AS n`,
      [ACCOUNT_ROWS, SPAN_DAYS],
    );
    await pool.query('ANALYZE audit_log; ANALYZE settings_changes; ANALYZE account_audit_log');
    const seedMs = performance.now() - seedStarted;

    const everything = { projectIds: null, includeAccounts: true };
    const oneProject = { projectIds: [server.projectId], includeAccounts: false };
    const none = parseAuditFilters({});
    const byActor = parseAuditFilters({ actor: 'person7@example.com' });
    const byAction = parseAuditFilters({ action: 'environment.updated' });
    // A cursor 100 pages of 25 down the unfiltered order.
    let deep: AuditPosition | null = null;
    {
      const rows = await pool.query<{ at: string; kind: 'audit'; id: string }>(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, 'audit' AS kind, id::text AS id
           FROM audit_log ORDER BY created_at DESC OFFSET 2500 LIMIT 1`,
      );
      deep = rows.rows[0]!;
    }
    const cases: [string, () => Promise<unknown>][] = [
      ['First page, every project and the account rows (owner)', () => readTrailPage(pool, everything, none, null, 25)],
      ['Page 100 by cursor, same', () => readTrailPage(pool, everything, none, deep, 25)],
      ['First page, one project (its admin)', () => readTrailPage(pool, oneProject, none, null, 25)],
      ['First page filtered by an actor e-mail', () => readTrailPage(pool, everything, byActor, null, 25)],
      ['First page filtered by a settings action', () => readTrailPage(pool, everything, byAction, null, 25)],
      ['CSV export, 10,000 rows, built as text', async () => {
        const { entries } = await readTrailForExport(pool, everything, none);
        return csvHeader() + entries.map(csvLine).join('');
      }],
    ];
    const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
    for (const [, run] of cases) await run();
    // Interleaved: every case once per round, so load on the shared machine hits them alike.
    for (let round = 0; round < REPEATS; round++) {
      for (const [name, run] of cases) times.get(name)!.push(await timed(run));
    }

    const sweeper = startRetentionSweeper({
      pool, logger: pino({ level: 'silent' }), metrics: createMetrics(), intervalMs: 2_147_483_647, auditRetentionDays: 365,
    });
    const sweepStarted = performance.now();
    const sweep = await sweeper.runOnce();
    const sweepMs = performance.now() - sweepStarted;
    await sweeper.stop();

    const load = os.loadavg().map((n) => n.toFixed(1)).join(' / ');
    const rows = [...times].map(([name, values]) => `| ${name} | ${median(values).toFixed(1)} ms | ${Math.max(...values).toFixed(1)} ms |`).join('\n');
    const section = `## Audit log

\`npm run bench:audit-log\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores shared, load average ${load} at the end,
PostgreSQL ${server.postgresVersion}, embedded, fsync on). ${AUDIT_ROWS.toLocaleString('en')} audit rows, ${SETTINGS_ROWS.toLocaleString('en')} settings changes
and ${ACCOUNT_ROWS.toLocaleString('en')} account rows over ${PROJECTS} projects and ${SPAN_DAYS} days (seeded in ${(seedMs / 1000).toFixed(1)} s). The reads of
\`GET /v1/audit-log\` and its CSV export as the routes call them (SQL and shaping, no HTTP), ${REPEATS} interleaved rounds.

| Read | Median | Max |
|---|---|---|
${rows}

The retention sweep with \`AUDIT_RETENTION_DAYS=365\` deleted ${sweep.auditRowsDeleted.toLocaleString('en')} rows (those older than a year)
in ${(sweepMs / 1000).toFixed(1)} s, 500 per transaction (outcome ${sweep.outcome}).

Each trail is read on its own \`created_at\` index and cut to a page before the union. A first form that sorted the union of
the whole tables for every page took 1,875 ms for the first page and 22.8 s for the export on this data (2026-11-26, load
average about 16).
`;
    process.stdout.write(`\n${section}`);
    replaceDocsSection(DOCS, '## Audit log', section);
  } finally {
    await server.stop();
  }
}

await main();
