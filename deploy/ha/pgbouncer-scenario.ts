// Scenario 6 of docs/deployment.md: PgBouncer between jtrace and HAProxy's primary port. Every
// instance of the topology connects through it in session mode, so every other scenario's load
// passes through it too; this one checks the traffic really does, that the worker's analyzer
// lock is held through it, that reads work, and that jtrace refuses to start behind the same
// PgBouncer in transaction or statement mode, naming the mode and the reason.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ADVISORY_LOCK_KEYS } from '../../src/db/advisory-lock.ts';
import { freePort } from '../../test/helpers/free-port.ts';
import { countStored, startLoad } from './load.ts';
import { ADMIN_TOKEN, ENCRYPTION_KEY, sleep, type Topology } from './topology.ts';

const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Starts a jtrace server on `databaseUrl` and waits for it to exit; it must within `timeoutMs`. */
async function startExpectingExit(databaseUrl: string, timeoutMs: number): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: REPOSITORY,
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, ADMIN_TOKEN, ENCRYPTION_KEY, HOST: '127.0.0.1',
      PORT: String(await freePort()), LOG_LEVEL: 'warn', JTRACE_ROLES: 'api,ingest,worker',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, stderr };
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client(url);
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Transactions PgBouncer has passed to the jtrace database so far (its console's SHOW STATS). */
async function bouncedTransactions(topology: Topology): Promise<number> {
  const rows = await query<{ database: string; total_xact_count: string }>(topology.bouncerConsoleUrl, 'SHOW STATS');
  return Number(rows.find((row) => row.database === 'jtrace')?.total_xact_count ?? 0);
}

export function describePgBouncer(context: () => { topology: Topology; apiKey: string }): void {
  describe('PgBouncer between jtrace and PostgreSQL', () => {
    it('refuses to start behind transaction or statement pooling, naming the mode and the reason', async () => {
      const { topology } = context();
      for (const mode of ['transaction', 'statement'] as const) {
        const { code, stderr } = await startExpectingExit(topology.bouncerUrls[mode], 60_000);
        expect(code, stderr).toBe(1);
        expect(stderr).toContain(`${mode} pooling mode (PgBouncer pool_mode = ${mode})`);
        expect(stderr).toContain('session advisory locks');
        expect(stderr).toContain('named prepared statements');
        expect(stderr).toContain('pool_mode = session');
      }
    });

    it('in session mode carries the ingestion and read load and the analyzer lock', async () => {
      const { topology, apiKey } = context();
      const before = await bouncedTransactions(topology);
      const load = startLoad(topology.jtraceUrl, apiKey, { batch: 4, single: 4 });
      await sleep(5_000);
      await load.stop();
      expect(load.unanswered).toEqual([]);
      expect(load.answers.filter((a) => a.status !== 202)).toEqual([]);
      expect(load.acknowledged.length).toBeGreaterThan(0);
      // Reads through the api instances, hence through PgBouncer: every acknowledged event of a sample.
      const sample = load.acknowledged.filter((_id, i) => i % Math.max(1, Math.floor(load.acknowledged.length / 200)) === 0);
      const statuses = await Promise.all(sample.map(async (id) => {
        const response = await fetch(`${topology.jtraceUrl}/v1/events/${id}`, { headers: { authorization: `Bearer ${apiKey}` } });
        const body = (await response.json()) as { data?: { id?: string } };
        return response.status === 200 && body.data?.id === id ? 'read' : `status ${response.status}`;
      }));
      expect(statuses.filter((s) => s !== 'read')).toEqual([]);
      expect(await countStored(topology.primaryUrl, load.acknowledged)).toBe(load.acknowledged.length);
      const passed = (await bouncedTransactions(topology)) - before;
      // Every acknowledged request committed at least one transaction through PgBouncer.
      expect(passed).toBeGreaterThanOrEqual(load.answers.length);
      // The worker holds the findings analyzer's session lock on a connection through PgBouncer.
      const holders = await query<{ application_name: string }>(topology.superuserPrimaryUrl, `
        SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = ${ADVISORY_LOCK_KEYS.findings}`);
      expect(holders.map((h) => h.application_name)).toEqual(['jtrace-server']);
      const pools = await query<{ database: string; pool_mode: string }>(topology.bouncerConsoleUrl, 'SHOW POOLS');
      expect(pools.find((p) => p.database === 'jtrace')?.pool_mode).toBe('session');
      console.log(JSON.stringify({
        scenario: 'pgbouncer session mode', answers: load.answers.length, acknowledged: load.acknowledged.length,
        read: sample.length, bouncedTransactions: passed, slowestMs: Math.max(...load.answers.map((a) => a.ms)),
      }));
    });
  });
}
