import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, testConfig } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { freePort } from '../../test/helpers/free-port.ts';

/**
 * GET /v1/openapi.json is answered from buffers prepared once (identity, gzip, br) with an ETag,
 * and clients that pipeline requests for it and never read are reset by the write timeout,
 * not kept until the idle timeout (docs/hostile-input.md, "Fixed documents").
 */

const WRITE_TIMEOUT_MS = 600;
// Far beyond the write timeout: a connection closed before it was closed by the write check.
const IDLE_TIMEOUT_MS = 60_000;
const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await buildApp({
    config: testConfig(),
    pool: db.pool,
    keyring,
    adminToken: TEST_ADMIN_TOKEN,
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(db.pool),
    build: { version: '0.0.0', source: 'package' },
    httpLimits: { headersTimeoutMs: 2_000, requestTimeoutMs: 4_000, idleTimeoutMs: IDLE_TIMEOUT_MS, maxConnections: 200, writeTimeoutMs: WRITE_TIMEOUT_MS },
  });
  port = await freePort();
  await app.listen({ host: '127.0.0.1', port });
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const get = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/v1/openapi.json', headers });

describe('the document', () => {
  it('is the same bytes on every request, the generated document, under one ETag', async () => {
    const first = await get();
    const second = await get();
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.rawPayload.equals(second.rawPayload)).toBe(true);
    expect(first.body).toBe(JSON.stringify(app.swagger()));
    expect(first.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(first.headers.vary).toBe('accept-encoding');
  });

  it('If-None-Match with its ETag is 304 without a body; another ETag is 200', async () => {
    const { headers } = await get();
    const etag = String(headers.etag);
    const unchanged = await get({ 'if-none-match': etag });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.rawPayload.length).toBe(0);
    expect(unchanged.headers.etag).toBe(etag);
    expect((await get({ 'if-none-match': `W/${etag}, "other"` })).statusCode).toBe(304);
    const gzipTag = String((await get({ 'accept-encoding': 'gzip' })).headers.etag);
    expect((await get({ 'if-none-match': gzipTag })).statusCode).toBe(304);
    const changed = await get({ 'if-none-match': '"an-older-document"' });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).toBe(JSON.stringify(app.swagger()));
  });

  it('is sent gzip or br compressed when accepted, and decodes to the same bytes', async () => {
    const identity = (await get()).rawPayload;
    const gzip = await get({ 'accept-encoding': 'gzip, deflate' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).equals(identity)).toBe(true);
    expect(gzip.rawPayload.length).toBeLessThan(identity.length / 4);
    const br = await get({ 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).equals(identity)).toBe(true);
    expect(br.headers.etag).not.toBe(gzip.headers.etag);
    const refused = await get({ 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.rawPayload.equals(identity)).toBe(true);
  });
});

describe('clients that never read it', () => {
  const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);

  /** A connection that pipelines `count` requests for the whole document and reads nothing. */
  function unreadPipeline(count: number): Promise<net.Socket> {
    return new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.pause();
        socket.write('GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(count));
        resolve(socket);
      });
      socket.on('error', () => {});
    });
  }

  function health(): Promise<number> {
    return new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => resolve(statusOf(received)));
    });
  }

  it('are reset by the write timeout, well before the idle timeout, and /health answers meanwhile', async () => {
    // 8 × 308 KB each: all of it fits in the kernel's buffers, where the write check saw nothing.
    // The server's side of each: a paused client never sees the reset itself.
    const accepted: Array<Promise<void>> = [];
    const onConnection = (socket: net.Socket) => accepted.push(new Promise((done) => socket.once('close', () => done())));
    app.server.on('connection', onConnection);
    const readers = await Promise.all(Array.from({ length: 40 }, () => unreadPipeline(8)));
    while (accepted.length < readers.length) await sleep(10);
    app.server.off('connection', onConnection);
    const started = performance.now();
    let open = readers.length;
    const allClosed = Promise.all(accepted.map((closed) => closed.then(() => (open -= 1))));
    const probes: number[] = [];
    try {
      // Generous: the point is that they go by the write timeout, not by the idle one (100 times it).
      const bound = sleep(25 * WRITE_TIMEOUT_MS).then(() => 'timed out' as const);
      const probing = (async () => {
        while (open > 0 && performance.now() - started < 25 * WRITE_TIMEOUT_MS) {
          probes.push(await health());
          await sleep(50);
        }
      })();
      expect(await Promise.race([allClosed.then(() => 'closed' as const), bound])).toBe('closed');
      await probing;
      expect(probes.length).toBeGreaterThan(0);
      expect(probes.every((status) => status === 200)).toBe(true);
    } finally {
      for (const reader of readers) reader.destroy();
    }
  });
});
