// The analyzer alone, this checkout's against another's, on the same journeys (npm run
// bench:findings-versions, FINDINGS_OTHER_TREE=/path/to/another/checkout with its node_modules).
// One load of bench/ingest-load.ts is ingested with no analyzer; then, round after round, every
// journey is marked again with its findings cleared and one version analyses them all, the two
// versions alternating in this process (so both see the same data, the same database and the same
// machine load). Prints the CPU per journey of this process and of PostgreSQL per round and the
// medians of the rounds after the first (which warms the code up). FINDINGS_VERSIONS_ROUNDS
// (default 6), FINDINGS_VERSIONS_BATCHES (load batches, default 150), FINDINGS_BATCH_THIS and
// FINDINGS_BATCH_OTHER (the analyzer's batch size per version). Printed only: docs/benchmarks.md
// quotes the runs by hand.

import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import type { Analyzer, AnalyzerDeps } from '../src/findings/analyzer.ts';
import { startAnalyzer } from '../src/findings/analyzer.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { startBenchServer } from './bench-server.ts';
import { inChild } from './ingest-load.ts';
import { postmasterPid, startCpuCount } from './process-cpu.ts';

const OTHER = process.env.FINDINGS_OTHER_TREE;
const ROUNDS = Number(process.env.FINDINGS_VERSIONS_ROUNDS ?? 6);
const BATCHES = Number(process.env.FINDINGS_VERSIONS_BATCHES ?? 150);
if (!OTHER) throw new Error('FINDINGS_OTHER_TREE: the checkout to compare with (its src/findings/analyzer.ts is loaded)');

type Start = (deps: AnalyzerDeps) => Analyzer;
const other = (await import(pathToFileURL(path.resolve(OTHER, 'src/findings/analyzer.ts')).href)) as { startAnalyzer: Start };
const versions: Array<{ name: string; start: Start; batchSize?: number }> = [
  { name: 'this', start: startAnalyzer, ...(process.env.FINDINGS_BATCH_THIS ? { batchSize: Number(process.env.FINDINGS_BATCH_THIS) } : {}) },
  { name: 'other', start: other.startAnalyzer, ...(process.env.FINDINGS_BATCH_OTHER ? { batchSize: Number(process.env.FINDINGS_BATCH_OTHER) } : {}) },
];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const server = await startBenchServer({ findingsAnalyzerEnabled: false });
try {
  const pending = async () => (await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM journey_findings_pending')).rows[0]!.n;
  const load = await inChild({ baseUrl: server.baseUrl, apiKey: server.apiKey, mode: 'batch', clients: 8, warmup: 0, count: BATCHES });
  if (load.failures > 0) throw new Error(`${load.failures} batches failed`);
  const journeys = await pending();
  const postmaster = await postmasterPid(server.pool);
  const results = new Map<string, Array<{ server: number; postgres: number }>>(versions.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const version of round % 2 === 0 ? versions : [...versions].reverse()) {
      // Cleared whole, problems with them: a DELETE would have the problem triggers undo every finding first.
      await server.pool.query('TRUNCATE journey_findings, problem_journeys, problems CASCADE');
      await server.pool.query('DELETE FROM journey_analysis');
      await server.pool.query(
        `INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at)
         SELECT project_id, id, nextval('journey_findings_pending_seq'), now() FROM journeys ON CONFLICT DO NOTHING`,
      );
      await server.pool.query('VACUUM journey_findings, journey_findings_pending');
      await server.pool.query('CHECKPOINT');
      const cpu = startCpuCount(postmaster);
      const analyzer = version.start({
        pool: server.pool, keyring: server.keyring, logger: pino({ level: 'silent' }), metrics: createMetrics(), idleMs: 3_600_000,
        ...(version.batchSize === undefined ? {} : { batchSize: version.batchSize }),
      });
      while ((await pending()) > 0) await analyzer.drain();
      await analyzer.stop();
      const used = cpu.stop();
      const result = { server: (used.serverMs * 1000) / journeys, postgres: ((used.postgresMs ?? NaN) * 1000) / journeys };
      results.get(version.name)!.push(result);
      process.stdout.write(`round ${round + 1} ${version.name}: ${result.server.toFixed(0)} + ${result.postgres.toFixed(0)} µs per journey, server + PostgreSQL (load average ${os.loadavg()[0]!.toFixed(1)})\n`);
    }
  }
  for (const [name, runs] of results) {
    const warm = runs.slice(1);
    process.stdout.write(`${name}: median ${median(warm.map((r) => r.server)).toFixed(0)} + ${median(warm.map((r) => r.postgres)).toFixed(0)} µs per journey (${journeys} journeys; rounds ${runs.map((r) => `${r.server.toFixed(0)}+${r.postgres.toFixed(0)}`).join(', ')})\n`);
  }
} finally {
  await server.stop();
}
