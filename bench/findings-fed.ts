// "A journey fed continuously" (FINDINGS_BENCH_FED=1 npm run bench:findings; not a test): one
// journey grown to FINDINGS_BENCH_FED_START events (100,000) and walked once, then fed batches of
// 100 events through the batch route for FINDINGS_BENCH_FED_SECONDS (30) while the analyzer runs
// as main.ts runs it; meanwhile, every second, a journey of another project that loses a field.
// Prints the analyzer's lag (sampled as service_findings_lag_seconds computes it), how long the
// other project's journeys waited for their findings, and the events the analyzer read per event
// fed (1 when each pass reads only what is new).

import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { createApiKey } from '../src/auth/api-key-service.ts';
import { analyzerPacer, startAnalyzer } from '../src/findings/analyzer.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { createProject } from '../src/projects/projects-sql.ts';
import { growJourney } from '../src/query/test-long-journey.ts';
import type { BenchServer } from './bench-server.ts';

const START = Number(process.env.FINDINGS_BENCH_FED_START ?? 100_000);
const SECONDS = Number(process.env.FINDINGS_BENCH_FED_SECONDS ?? 30);
const FIRST_MS = Date.parse('2026-01-01T00:00:00.000Z');
const f = (n: number, digits = 2) => n.toFixed(digits);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function post(server: BenchServer, apiKey: string, events: object[]): Promise<void> {
  const response = await fetch(`${server.baseUrl}/v1/events/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events: events.map((event) => ({ protocolVersion: '0.1', event })) }),
  });
  if (response.status !== 202) throw new Error(`batch: ${response.status}`);
}

const step = (journeyId: string, id: string, timestampMs: number, n: number) => ({
  id, journeyId, environment: 'production', service: 'worker', entity: { type: 'contact', id: `contact-${journeyId}` }, operation: 'transformed',
  name: `step-${n % 10}`, timestamp: new Date(timestampMs).toISOString(),
  input: { customer: { name: 'Ada Lovelace', phone: '+44 20 7946 0018' }, n }, output: { customer: { name: 'Ada Lovelace', phone: '+44 20 7946 0018' }, n: n + 1 },
});

/** Runs the scenario and answers its figures as Markdown lines. */
export async function fedJourney(server: BenchServer): Promise<string> {
  await post(server, server.apiKey, [step('jrn-fed', 'fed-seed', FIRST_MS - 1_000, 0)]);
  await growJourney(server.pool, server.projectId, 'jrn-fed', START, { prefix: 'fed-', firstTimestampMs: FIRST_MS, firstReceivedMs: Date.now() - 60_000 });
  await server.pool.query(`UPDATE journey_findings_pending SET pending_at = now()`);
  const other = await createProject(server.pool, 'other', 'Other');
  const { apiKey: otherKey } = await createApiKey(server.pool, server.keyring, { projectSlug: 'other', environmentName: 'production', name: 'bench', defaultRetentionDays: 30 });
  const metrics = createMetrics();
  const pacer = analyzerPacer(server.pool, server.config.findingsAnalyzerBusyShare, metrics);
  const analyzer = startAnalyzer({ pool: server.pool, keyring: server.keyring, logger: pino({ level: 'silent' }), metrics, pacer });
  const walkStart = performance.now();
  await server.pool.query(
    `INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at) VALUES ($1, 'jrn-fed', nextval('journey_findings_pending_seq'), now())
     ON CONFLICT (project_id, journey_id) DO UPDATE SET pending = EXCLUDED.pending`,
    [server.projectId],
  );
  while ((await server.pool.query('SELECT 1 FROM journey_findings_pending')).rows.length > 0) await sleep(100);
  const firstWalkMs = performance.now() - walkStart;

  const lags: number[] = [];
  const latencies: number[] = [];
  let fed = 0;
  let feeding = true;
  const readBefore = analyzer.readCounts();
  const until = performance.now() + SECONDS * 1000;
  const feeder = (async () => {
    while (performance.now() < until) {
      const events = Array.from({ length: 100 }, (_, i) => step('jrn-fed', `fed-live-${fed + i}`, FIRST_MS + (START + fed + i) * 1000, START + fed + i));
      await post(server, server.apiKey, events);
      fed += events.length;
    }
    feeding = false;
  })();
  const sampler = (async () => {
    while (feeding) {
      const lag = await server.pool.query<{ lag: number | null }>('SELECT EXTRACT(EPOCH FROM (clock_timestamp() - min(pending_at)))::float8 AS lag FROM journey_findings_pending');
      lags.push(Math.max(0, lag.rows[0]?.lag ?? 0));
      await sleep(200);
    }
  })();
  for (let i = 0; feeding; i++) {
    const journeyId = `jrn-other-${i}`;
    const sent = performance.now();
    await post(server, otherKey, [{ ...step(journeyId, `${journeyId}-1`, Date.now(), 0), output: { customer: { name: 'Ada Lovelace' } } }]);
    while ((await server.pool.query('SELECT 1 FROM journey_findings WHERE project_id = $1 AND journey_id = $2', [other.id, journeyId])).rows.length === 0) await sleep(20);
    latencies.push((performance.now() - sent) / 1000);
    await sleep(Math.max(0, 1000 - (performance.now() - sent)));
  }
  await Promise.all([feeder, sampler]);
  while ((await server.pool.query('SELECT 1 FROM journey_findings_pending')).rows.length > 0) await sleep(100);
  const read = analyzer.readCounts();
  await analyzer.stop();
  const maxLag = Math.max(0, ...lags);
  const maxOther = Math.max(0, ...latencies);
  return [
    `| Journey grown to ${START} events, walked once | ${f(firstWalkMs / 1000)} s | |`,
    `| Then fed for ${SECONDS} s by one key | ${fed} events (${f(fed / SECONDS, 0)} events/s) | |`,
    `| Analyzer lag while fed, median / p95 / max | ${f(percentile(lags, 50))} / ${f(percentile(lags, 95))} / ${f(maxLag)} s | under 10 s ${maxLag < 10 ? '(met)' : '(not met)'} |`,
    `| Another project's findings after, median / max (${latencies.length} journeys) | ${f(percentile(latencies, 50))} / ${f(maxOther)} s | under 2 s ${maxOther < 2 ? '(met)' : '(not met)'} |`,
    `| Events read per event fed; hand-off steps read again | ${f((read.events - readBefore.events) / Math.max(1, fed + latencies.length))}; ${read.carried - readBefore.carried} | |`,
  ].join('\n');
}
