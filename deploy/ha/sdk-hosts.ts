// Host services using the Node and Python SDKs through the jtrace HAProxy during a scenario
// (docs/deployment.md): each records a journey of three events every 20 ms until stopped, checks
// that every SDK call returns normally (a wrapper hands back the host function's value), then
// shuts its recorder down and reports the SDK's counters and the event ids its calls returned.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createRecorder } from '../../packages/node/src/index.ts';
import { findPython, PYTHON_SOURCE } from '../../packages/python/test/python.ts';
import { sleep } from './topology.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** What a host may wait at shutdown for its queue to drain. */
const SHUTDOWN_MS = 60_000;
/** The breaker's pause after 5 failed requests: 5 s rather than the default 30 s keeps the scenario short. */
const BREAKER_COOLDOWN_MS = 5_000;

export interface HostResult {
  service: string;
  counters: { recorded: number; sent: number; rejected: number; dropped: number; unconfirmed: number; requestFailures: number; breakerOpens: number };
  /** Event ids the SDK's calls returned. */
  ids: string[];
  /** Exceptions that reached the host from an SDK call, and wrappers that returned something else. */
  escaped: string[];
  wrongResults: number;
  calls: number;
  settled: boolean;
}

export interface SdkHost {
  stop(): Promise<HostResult>;
}

export function startNodeHost(endpoint: string, apiKey: string): SdkHost {
  const service = 'ha-node-host';
  const recorder = createRecorder({ endpoint, apiKey, serviceName: service, environment: 'production', breakerCooldownMs: BREAKER_COOLDOWN_MS, onDiagnostic: () => {} });
  const result: HostResult = { service, counters: null!, ids: [], escaped: [], wrongResults: 0, calls: 0, settled: false };
  let running = true;
  const loop = (async () => {
    for (let i = 1; running; i++) {
      const order = { id: `ord-node-${i}`, total: i };
      try {
        const journey = recorder.startJourney({ entity: { type: 'order', id: order.id } });
        if (journey.receive('receive-order', order, (o) => o.total * 2) !== i * 2) result.wrongResults++;
        for (const id of [journey.record({ operation: 'persisted', name: 'persist-order' }), journey.finish()]) if (id) result.ids.push(id);
        result.calls += 4;
      } catch (error) {
        result.escaped.push(`${(error as Error).name}: ${(error as Error).message}`);
      }
      await sleep(20);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      try {
        result.settled = await recorder.shutdown({ timeoutMs: SHUTDOWN_MS });
      } catch (error) {
        result.escaped.push(`shutdown: ${(error as Error).name}`);
      }
      result.counters = recorder.counters();
      return result;
    },
  };
}

/** The Python SDK in Debian's python3, as a separate host process. */
export function startPythonHost(endpoint: string, apiKey: string): SdkHost {
  const python = findPython();
  if (python === null) throw new Error('no Python 3.9+ for the Python SDK host (Debian: apt-get install python3)');
  const dir = mkdtempSync(path.join(tmpdir(), 'jtrace-ha-python-'));
  const stopFile = path.join(dir, 'stop');
  const child = spawn(python, [path.join(HERE, 'sdk_host.py')], {
    env: { PATH: process.env.PATH ?? '', PYTHONPATH: PYTHON_SOURCE, PYTHONDONTWRITEBYTECODE: '1', JTRACE_ENDPOINT: endpoint, JTRACE_API_KEY: apiKey, STOP_FILE: stopFile, SHUTDOWN_SECONDS: String(SHUTDOWN_MS / 1000), BREAKER_COOLDOWN_SECONDS: String(BREAKER_COOLDOWN_MS / 1000) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    async stop() {
      writeFileSync(stopFile, '');
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) throw new Error(`the Python host exited ${code}: ${stderr.slice(-2000)}`);
      const reported = JSON.parse(stdout.trim().split('\n').pop()!) as Omit<HostResult, 'service' | 'counters'> & { counters: Record<string, number> };
      const c = reported.counters;
      return {
        ...reported, service: 'ha-python-host',
        counters: { recorded: c.recorded!, sent: c.sent!, rejected: c.rejected!, dropped: c.dropped!, unconfirmed: c.unconfirmed!, requestFailures: c.request_failures!, breakerOpens: c.breaker_opens! },
      };
    },
  };
}

/** How many events of the host's service, and of its returned ids, the primary holds. */
export async function storedOf(databaseUrl: string, host: HostResult): Promise<{ byService: number; ofIds: number }> {
  const client = new pg.Client(databaseUrl);
  client.on('error', () => {});
  await client.connect();
  try {
    const byService = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE service = $1', [host.service])).rows[0]!.n;
    const ofIds = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE id = ANY($1)', [host.ids])).rows[0]!.n;
    return { byService, ofIds };
  } finally {
    await client.end();
  }
}
