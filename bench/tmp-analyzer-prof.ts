import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import pino from 'pino';
import { startBenchServer } from './bench-server.ts';
import { inChild } from './ingest-load.ts';
import { startAnalyzer } from '../src/findings/analyzer.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
const server = await startBenchServer({ findingsAnalyzerEnabled: false });
const pending = async () => (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journey_findings_pending')).rows[0]!.n;
await inChild({ baseUrl: server.baseUrl, apiKey: server.apiKey, mode: 'batch', clients: 8, warmup: 0, count: 150 });
await server.pool.query('ANALYZE');
const markAll = () => server.pool.query(`INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at) SELECT project_id, id, nextval('journey_findings_pending_seq'), now() FROM journeys ON CONFLICT (project_id, journey_id) DO UPDATE SET pending = EXCLUDED.pending`);
const session = new Session(); session.connect();
for (let round = 0; round < 4; round++) {
  await server.pool.query('DELETE FROM journey_findings'); await markAll();
  const n = await pending();
  if (round === 3) { await session.post('Profiler.enable'); await session.post('Profiler.start'); }
  const c0 = process.cpuUsage(); const t0 = performance.now();
  const a = startAnalyzer({ pool: server.pool, logger: pino({ level: 'silent' }), metrics: createMetrics(), idleMs: 3_600_000 });
  while ((await pending()) > 0) await a.drain();
  await a.stop();
  const c = process.cpuUsage(c0);
  console.log(`round ${round}: ${n} journeys, server CPU ${((c.user + c.system) / n).toFixed(0)} µs/journey, ${(n / ((performance.now() - t0) / 1000)).toFixed(0)} journeys/s`);
  if (round === 3) { const { profile } = await session.post('Profiler.stop'); writeFileSync('/tmp/mb/analyzer.cpuprofile', JSON.stringify(profile)); }
}
await server.stop();
