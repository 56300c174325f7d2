// Problems benchmark (npm run bench:problems). 1. The problems list query (the route's SQL,
// src/problems/problems-sql.ts) at 1,000,000 journeys with 200,000 findings rows, loaded in
// bulk with SQL; the findings go in through the problems triggers, whose bulk cost is reported
// too. p50 and p95 per list shape; target p95 <= 50 ms. 2. The analyzer's rate (journeys
// analysed per second) with the problems triggers and without them, on the same journeys,
// alternating runs. Replaces the `## Problems` section of docs/benchmarks.md.
// PROBLEMS_BENCH_JOURNEYS and PROBLEMS_BENCH_FINDINGS change the scale.

import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { startAnalyzer } from '../src/findings/analyzer.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { PROBLEM_STATUSES, selectProblems, type ProblemFilters, type ProblemSort } from '../src/problems/problems-sql.ts';
import { startBenchServer } from './bench-server.ts';
import { replaceDocsSection } from './docs-section.ts';
import { BATCH_SIZE, makeBatch } from './ingest-load.ts';

const JOURNEYS = Number(process.env.PROBLEMS_BENCH_JOURNEYS ?? 1_000_000);
const FINDINGS = Number(process.env.PROBLEMS_BENCH_FINDINGS ?? 200_000);
const CHUNK = 20_000;
const QUERIES = 200;
const ANALYSED_BATCHES = Number(process.env.PROBLEMS_BENCH_BATCHES ?? 60);
const RUNS = 3;
const TARGET_P95_MS = 50;
const DOCS = new URL('../docs/benchmarks.md', import.meta.url);
const f = (n: number, digits = 0) => n.toFixed(digits);
const log = (line: string) => console.log(line);

const server = await startBenchServer();
const { pool, projectId } = server;
try {
  const env = (await pool.query<{ id: string }>(`SELECT id FROM environments WHERE project_id = $1 AND name = 'production'`, [projectId])).rows[0]!.id;
  let started = performance.now();
  await pool.query('SET statement_timeout = 0');
  for (let from = 0; from < JOURNEYS; from += CHUNK * 5) {
    await pool.query(
      `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, status, event_count, started_at, last_event_at)
       SELECT $1, 'jrn_' || n, $2, 'order', 'x', 'completed', 4, now() - (n % 2592000) * interval '1 second' - interval '1 minute',
              now() - (n % 2592000) * interval '1 second'
         FROM generate_series($3::int, $4::int) AS n`,
      [projectId, env, from, Math.min(from + CHUNK * 5, JOURNEYS) - 1],
    );
  }
  const journeysS = (performance.now() - started) / 1000;
  log(`${JOURNEYS} journeys in ${f(journeysS, 1)} s`);
  // Findings: a journey in five has a row; 1 to 3 findings each, over 600 fields, 8 services and
  // their hand-offs, skewed so a few problems hold most journeys (as real data does).
  started = performance.now();
  const per = Math.ceil(JOURNEYS / FINDINGS);
  for (let from = 0; from < FINDINGS; from += CHUNK) {
    await pool.query(
      `INSERT INTO journey_findings (project_id, journey_id, environment_id, entity_type, observed_at, last_found_at, kind, path, step_at, in_transit, from_at,
          step_ids, step_services, step_names, first_found_at)
       SELECT $1, j.id, j.environment_id, 'order', j.last_event_at, now(),
              (ARRAY['lost', 'changed', 'lost'])[1:c], (ARRAY['field.' || (h % 600), 'field.' || ((h / 7) % 600), 'field.' || ((h / 13) % 60)])[1:c],
              (ARRAY[1, 1, 2]::int2[])[1:c], (ARRAY[false, false, true])[1:c], (ARRAY[NULL, NULL, 1]::int2[])[1:c],
              ARRAY[j.id || '-a', j.id || '-b'], ARRAY['svc' || (h % 8), 'svc' || ((h + 1) % 8)], ARRAY['step' || (h % 40), 'step' || ((h + 1) % 40)],
              array_fill(now(), ARRAY[c])
         FROM (SELECT n, (floor(power(random(), 3) * 100000))::int AS h, 1 + n % 3 AS c FROM generate_series($2::int, $3::int) AS n) g
         JOIN journeys j ON j.project_id = $1 AND j.id = 'jrn_' || (g.n * $4)`,
      [projectId, from, Math.min(from + CHUNK, FINDINGS) - 1, per],
    );
  }
  const findingsS = (performance.now() - started) / 1000;
  await pool.query(`UPDATE problem_journeys SET release = 'v' || (abs(hashtext(journey_id)) % 20) WHERE project_id = $1`, [projectId]);
  for (const table of ['problems', 'problem_journeys', 'journey_findings']) await pool.query(`VACUUM ANALYZE ${table}`);
  const counts = (await pool.query<{ problems: number; members: number; findings: number }>(
    `SELECT (SELECT count(*)::int FROM problems) AS problems, (SELECT count(*)::int FROM problem_journeys) AS members,
            (SELECT sum(cardinality(kind))::int FROM journey_findings) AS findings`,
  )).rows[0]!;
  log(`${FINDINGS} findings rows (${counts.findings} findings) through the triggers in ${f(findingsS, 1)} s: ${counts.problems} problems, ${counts.members} problem journeys`);

  // The list, as the route asks for it (one more row than the page, to know whether a page follows).
  const none: ProblemFilters = { statuses: ['open', 'regressed', 'resolved'], kind: null, path: null, service: null, environment: null, release: null, since: null };
  const shapes: Array<{ name: string; filters: ProblemFilters; sort: ProblemSort; second?: boolean }> = [
    { name: 'default (journeys)', filters: none, sort: 'journeys' },
    { name: 'sort lastSeen', filters: none, sort: 'lastSeen' },
    { name: 'kind=lost, second page', filters: { ...none, kind: 'lost' }, sort: 'journeys', second: true },
    { name: 'service=svc3', filters: { ...none, service: 'svc3' }, sort: 'journeys' },
    { name: 'release=v7', filters: { ...none, release: 'v7' }, sort: 'journeys' },
    { name: 'status=all, since 1 day', filters: { ...none, statuses: PROBLEM_STATUSES, since: new Date(Date.now() - 86_400_000) }, sort: 'firstSeen' },
  ];
  const rows: string[] = [];
  let worst = 0;
  for (const shape of shapes) {
    const times: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const at = performance.now();
      const first = await selectProblems(pool, projectId, shape.filters, { sort: shape.sort, after: null, limit: 26 }, new Date());
      if (shape.second && first.length === 26) {
        await selectProblems(pool, projectId, shape.filters, { sort: shape.sort, after: { key: first[24]!.sort_key, id: first[24]!.id }, limit: 26 }, new Date());
      }
      if (i >= 10) times.push(performance.now() - at);
    }
    times.sort((a, b) => a - b);
    const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
    worst = Math.max(worst, p(0.95));
    rows.push(`| ${shape.name} | ${f(p(0.5), 1)} | ${f(p(0.95), 1)} |`);
    log(`${shape.name}: p50 ${f(p(0.5), 1)} ms, p95 ${f(p(0.95), 1)} ms`);
  }

  // The analyzer with and without the problems triggers, on the same journeys each run.
  await pool.query(`DELETE FROM journeys WHERE project_id = $1`, [projectId]);
  const apiKey = server.apiKey;
  for (let b = 0; b < ANALYSED_BATCHES; b++) {
    const response = await fetch(`${server.baseUrl}/v1/events/batch`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ events: makeBatch(`p${b}`) }) });
    if (response.status !== 202) throw new Error(`ingestion answered ${response.status}`);
  }
  const journeys = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journeys')).rows[0]!.n;
  const triggers = (on: boolean) => pool.query(`ALTER TABLE journey_findings ${on ? 'ENABLE' : 'DISABLE'} TRIGGER USER`);
  const rates: Record<'with' | 'without', number[]> = { with: [], without: [] };
  for (let run = 0; run < RUNS * 2; run++) {
    const mode = run % 2 === 0 ? 'with' : 'without';
    // From scratch each run: no walk, no findings, no problems.
    await triggers(false);
    await pool.query('DELETE FROM journey_findings; DELETE FROM journey_analysis; DELETE FROM problem_journeys; DELETE FROM problems');
    await triggers(mode === 'with');
    await pool.query(`INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at)
      SELECT project_id, id, nextval('journey_findings_pending_seq'), now() FROM journeys ON CONFLICT (project_id, journey_id) DO UPDATE SET pending = EXCLUDED.pending`);
    const analyzer = startAnalyzer({ pool, keyring: server.keyring, logger: pino({ level: 'silent' }), metrics: createMetrics(), idleMs: 3_600_000, lockRetryMs: 3_600_000 });
    const at = performance.now();
    let cleared = 0;
    for (let round = 0; round < 1000; round++) {
      const n = await analyzer.drain();
      cleared += n;
      if (n === 0) break;
    }
    const seconds = (performance.now() - at) / 1000;
    await analyzer.stop();
    rates[mode].push(cleared / seconds);
    log(`analyzer ${mode} problems: ${cleared} journeys in ${f(seconds, 2)} s (${f(cleared / seconds)} /s)`);
  }
  await triggers(true);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const withRate = median(rates.with);
  const withoutRate = median(rates.without);

  replaceDocsSection(DOCS, '## Problems', `## Problems

\`npm run bench:problems\` (bench/problems.ts), ${os.cpus().length} cores shared with other work, PostgreSQL ${server.postgresVersion} embedded.

**The problems list** (the query of \`GET /v1/projects/:projectId/problems\`, a page of 25) at ${JOURNEYS.toLocaleString('en')} journeys with
${FINDINGS.toLocaleString('en')} findings rows (${counts.findings.toLocaleString('en')} findings), ${counts.problems.toLocaleString('en')} problems and ${counts.members.toLocaleString('en')} problem journeys;
${QUERIES} queries per shape after 10 warm-up ones. Target p95 <= ${TARGET_P95_MS} ms: **${worst <= TARGET_P95_MS ? 'met' : 'missed'}** (worst p95 ${f(worst, 1)} ms).

| list | p50 ms | p95 ms |
|---|---|---|
${rows.join('\n')}

The list reads the problems rows (one per problem, counts kept by the triggers) and never the findings; a
release filter reads problem_journeys through its (project, release, problem) index.

**Bulk load through the triggers**: ${FINDINGS.toLocaleString('en')} findings rows in statements of ${CHUNK.toLocaleString('en')} took ${f(findingsS, 1)} s
(${f(FINDINGS / findingsS)} rows/s), problems and problem journeys included.

**The analyzer with problems kept beside** (${journeys} journeys of ${BATCH_SIZE / 4 * ANALYSED_BATCHES > 0 ? 4 : 0} steps from the ingestion
benchmark's batches, analysed from scratch, ${RUNS} runs each, alternating, medians): ${f(withRate)} journeys/s with the problems triggers,
${f(withoutRate)} journeys/s without them (${f((1 - withRate / withoutRate) * 100, 1)} % fewer).
`);
  log(`docs/benchmarks.md updated`);
} finally {
  await server.stop();
}
