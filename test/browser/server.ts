// The real server for browser tests: buildApp on a free port, a fresh database cloned from the
// migrated template of test/global-setup.ts, the built interface from web/dist.
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, TEST_ADMIN_TOKEN } from '../helpers/app.ts';
import type { Pool } from '../../src/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/free-port.ts';

export const WEB_ROOT = path.resolve(import.meta.dirname, '../../web/dist');
export { TEST_ADMIN_TOKEN };

export interface RunningServer {
  app: FastifyInstance;
  baseUrl: string;
  close(): Promise<void>;
}

export function assertWebBuilt(): void {
  if (!existsSync(path.join(WEB_ROOT, 'index.html'))) throw new Error('web/dist is missing: run `npm run build:web` first');
}

/** One server process's worth of app (its own credential throttle) over the given database. */
export async function startServer(db: { pool: Pool }): Promise<RunningServer> {
  assertWebBuilt();
  const { app } = await buildTestApp(db.pool, { webRoot: WEB_ROOT, config: { replayAllowedHosts: ['127.0.0.1', 'localhost'], alertAllowedHosts: ['127.0.0.1'] } });
  const port = await freePort();
  await app.listen({ host: '127.0.0.1', port });
  return { app, baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
}

export async function createDatabase(): Promise<TestDatabase> {
  return createTestDatabase();
}

export interface EchoDestination {
  url: string;
  received: { method: string; path: string; headers: http.IncomingHttpHeaders; body: unknown }[];
  close(): Promise<void>;
}

/**
 * A local service to replay to: answers the body it got with the phone number kept and a
 * `replayed` flag, so the comparison with the recorded output has something to show.
 */
export async function startEchoDestination(): Promise<EchoDestination> {
  const received: EchoDestination['received'] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body: unknown = text === '' ? null : JSON.parse(text);
      received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ...(typeof body === 'object' && body !== null ? body : { body }), replayed: true }));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
