// What one more or one fewer round trip is worth to a lone batch (npm run bench:round-trip; not a
// test): the median and p99 of a statement that does nothing (a named SELECT 1), and of an empty
// transaction's BEGIN and COMMIT, from this process to an embedded PostgreSQL over loopback, on
// one connection, the way a batch's statements go. BENCH_ROUND_TRIPS (default 3,000) of each.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createPool } from '../src/db/pool.ts';
import { freePort } from '../test/helpers/free-port.ts';

const ROUNDS = Number(process.env.BENCH_ROUND_TRIPS ?? 3_000);
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * q)]!;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jtrace-bench-rtt-'));
const server = await startEmbeddedPostgres({ dataDir, port: await freePort(), fsync: false });
const pool = createPool({ connectionString: server.url, max: 1, statementTimeoutMs: 0 });
try {
  const client = await pool.connect();
  const times = { select: [] as number[], begin: [] as number[], commit: [] as number[] };
  const load = os.loadavg()[0]!;
  for (let i = 0; i < ROUNDS; i++) {
    let t = performance.now();
    await client.query({ name: 'bench-select-1', text: 'SELECT 1' });
    times.select.push(performance.now() - t);
    t = performance.now();
    await client.query('BEGIN');
    times.begin.push(performance.now() - t);
    t = performance.now();
    await client.query('COMMIT');
    times.commit.push(performance.now() - t);
  }
  client.release();
  console.log(`${ROUNDS} of each, load average ${load.toFixed(2)} to ${os.loadavg()[0]!.toFixed(2)}`);
  for (const [name, values] of Object.entries(times)) {
    console.log(`${name}: median ${quantile(values, 0.5).toFixed(3)} ms, p99 ${quantile(values, 0.99).toFixed(3)} ms`);
  }
} finally {
  await pool.end();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
