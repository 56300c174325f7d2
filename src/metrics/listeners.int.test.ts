import { spawn, type ChildProcess } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptField } from '../crypto/field-encryption.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { freePort } from '../../test/helpers/free-port.ts';

/**
 * The real entry point (src/main.ts) as a process: the metrics listener exists only with
 * METRICS_PORT, and the start-up check reports data under a key that is not configured with
 * counts per table (never values) and in service_unreadable_values, without stopping the start.
 */

const LOST_KEY = createKeyring({ current: 'a-key-this-installation-no-longer-has-0123456789' });
const LOST_VALUE = 'entity-written-under-a-lost-key';

let db: TestDatabase;
const children: ChildProcess[] = [];


/** Starts src/main.ts and resolves with its log once it listens. */
async function startServer(env: Record<string, string>): Promise<{ log: string[]; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: new URL('../../', import.meta.url),
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url, ADMIN_TOKEN: TEST_ADMIN_TOKEN, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const log: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 20 s:\n${log.join('')}`)), 20_000);
    const onData = (chunk: Buffer) => {
      log.push(chunk.toString());
      if (log.join('').includes('jtrace is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${log.join('')}`)));
  });
  return {
    log,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
  const project = await seedProject(db.pool, keyring, 'acme');
  const environment = await db.pool.query<{ id: string }>('SELECT id FROM environments WHERE project_id = $1', [project.projectId]);
  await db.pool.query(
    `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, started_at, last_event_at)
     VALUES ($1, 'jrn_lost', $2, 'order', $3, now(), now())`,
    [project.projectId, environment.rows[0]!.id, encryptField(LOST_KEY, LOST_VALUE)],
  );
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await db.drop();
});

describe('the server process', () => {
  it('serves /metrics on METRICS_PORT only, and starts despite unreadable data, reporting counts', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const server = await startServer({ PORT: String(port), METRICS_PORT: String(metricsPort) });
    try {
      // The check runs beside traffic once the server listens: wait for its log line.
      for (let i = 0; i < 100 && !server.log.join('').includes('"unreadableValues"'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const scrape = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(scrape).toContain('service_unreadable_values{table="journeys"} 1');
      expect(scrape).toContain('service_unreadable_values{table="search_tokens"} 0');
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);
      const warning = server.log.join('').split('\n').find((line) => line.includes('"unreadableValues"'));
      expect(JSON.parse(warning!)).toMatchObject({ level: 40, unreadableValues: { journeys: 1, journey_aliases: 0 } });
      expect(server.log.join('')).not.toContain(LOST_VALUE);
    } finally {
      await server.stop();
    }
  });

  it('opens no metrics listener without METRICS_PORT', async () => {
    const [port, wouldBeMetrics] = [await freePort(), await freePort()];
    const server = await startServer({ PORT: String(port) });
    try {
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      await expect(fetch(`http://127.0.0.1:${wouldBeMetrics}/metrics`)).rejects.toThrow();
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('warns that HOST beyond loopback serves plain HTTP, and keeps metrics on METRICS_HOST (loopback)', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const server = await startServer({ HOST: '0.0.0.0', PORT: String(port), METRICS_PORT: String(metricsPort) });
    try {
      const warning = server.log.join('').split('\n').find((line) => line.includes('plain HTTP'));
      expect(JSON.parse(warning!)).toMatchObject({ level: 40, host: '0.0.0.0' });
      expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
      // An address of this machine beyond loopback reaches the API but not the metrics.
      const external = Object.values(networkInterfaces()).flat().find((nic) => nic?.family === 'IPv4' && !nic.internal)?.address;
      if (external !== undefined) {
        expect((await fetch(`http://${external}:${port}/health`)).status).toBe(200);
        await expect(fetch(`http://${external}:${metricsPort}/metrics`)).rejects.toThrow();
      }
    } finally {
      await server.stop();
    }
  });

  it('says nothing about plain HTTP on loopback', async () => {
    const server = await startServer({ PORT: String(await freePort()) });
    await server.stop();
    expect(server.log.join('')).not.toContain('plain HTTP');
  });
});
