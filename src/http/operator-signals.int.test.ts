import net from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppDeps } from '../app.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool } from '../db/pool.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, seedProject, testConfig } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { freePort } from '../../test/helpers/free-port.ts';

/**
 * What an operator and a client see of failures outside the routes' own rules: log lines of a
 * 500, client aborts and the credential throttle; a database outage; refusals of Node's HTTP
 * parser; duplicate Authorization headers.
 */

const SECRET_TEXT = 'secret-in-message-4711';
const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let port: number;
let apiKey: string;
const lines: Array<Record<string, unknown>> = [];

function captureLogger() {
  return pino(
    { level: 'debug' },
    new Writable({
      write(chunk, _encoding, callback) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        callback();
      },
    }),
  );
}

function deps(overrides: Partial<AppDeps> = {}): AppDeps {
  return {
    config: testConfig(),
    pool: db.pool,
    keyring,
    adminToken: TEST_ADMIN_TOKEN,
    logger: captureLogger(),
    metrics: createMetrics(db.pool),
    build: { version: '0.0.0', source: 'package' },
    httpLimits: { headersTimeoutMs: 300, requestTimeoutMs: 600, idleTimeoutMs: 1_000, maxConnections: 50 },
    ...overrides,
  };
}

/** Sends raw bytes and resolves with everything the server wrote before closing. */
function rawExchange(bytes: Buffer | string, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => (socket.destroy(), reject(new Error('no answer'))), timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => (clearTimeout(timer), resolve(Buffer.concat(chunks).toString('latin1'))));
    socket.write(bytes);
  });
}

function bodyOf(response: string): { error: { code: string; message: string; requestId: string } } {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
}

beforeAll(async () => {
  db = await createTestDatabase();
  apiKey = (await seedProject(db.pool, keyring, 'signals')).apiKey;
  app = await buildApp(deps());
  app.get('/v1/test/throw', async () => {
    throw new TypeError(SECRET_TEXT);
  });
  port = await freePort();
  await app.listen({ host: '127.0.0.1', port });
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

describe('log lines', () => {
  it('a 500 logs the class, code and stack frames, never the message', async () => {
    lines.length = 0;
    const response = await app.inject({ method: 'GET', url: '/v1/test/throw' });
    expect(response.statusCode).toBe(500);
    const line = lines.find((l) => l.msg === 'unexpected failure')!;
    expect(line.level).toBe(50);
    const err = line.err as { type: string; stack: string[] };
    expect(err.type).toBe('TypeError');
    expect(err.stack.some((frame) => frame.includes('operator-signals.int.test.ts'))).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(SECRET_TEXT);
  });

  it('a request line carries the client address as the throttle sees it', async () => {
    lines.length = 0;
    await app.inject({ method: 'GET', url: '/health', remoteAddress: '::ffff:192.0.2.44' });
    const line = lines.find((l) => l.msg === 'request')!;
    expect(line.client).toBe('192.0.2.44');
  });

  it('a lock and an unlock of the credential throttle are logged at warn', async () => {
    let now = Date.UTC(2026, 0, 1);
    const local = await buildApp(deps({ now: () => now }));
    try {
      lines.length = 0;
      for (let i = 0; i < 5; i++) {
        await local.inject({ method: 'GET', url: '/v1/projects', headers: bearer('wrong-token'), remoteAddress: '192.0.2.45' });
      }
      expect(lines.filter((l) => l.level === 40).map((l) => [l.msg, l.client])).toEqual([['credential throttle locked an address', '192.0.2.45']]);
      now += 5 * 60_000;
      await local.inject({ method: 'GET', url: '/v1/projects', headers: bearer(TEST_ADMIN_TOKEN), remoteAddress: '192.0.2.45' });
      expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
        'credential throttle locked an address',
        'credential throttle unlocked an address',
      ]);
    } finally {
      await local.close();
    }
  });

  it('an aborted upload is logged at debug, never at error', async () => {
    lines.length = 0;
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`POST /v1/events/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${apiKey}\r\nContent-Length: 100000\r\n\r\n{"events":[`);
        setTimeout(() => (socket.destroy(), setTimeout(resolve, 200)), 100);
      });
    });
    expect(lines.some((l) => (l.level as number) >= 50)).toBe(false);
    expect(lines.some((l) => l.level === 20 && String(l.msg).startsWith('client'))).toBe(true);
  });
});

describe('refusals of the HTTP parser answer the spec error shape', () => {
  it('Transfer-Encoding together with Content-Length: 400 bad_request', async () => {
    const response = await rawExchange('POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(response).error).toMatchObject({ code: 'bad_request', message: expect.any(String), requestId: expect.any(String) });
  });

  it('a raw 0xff byte in the URL: 400 bad_url', async () => {
    const response = await rawExchange(Buffer.concat([Buffer.from('GET /v1/journeys/'), Buffer.from([0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]));
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(response).error.code).toBe('bad_url');
  });

  it('an HTTP/1.1 request without Host: 400 bad_request with a request id, and the connection closed', async () => {
    const response = await rawExchange('GET /health HTTP/1.1\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    const body = bodyOf(response);
    expect(body.error).toMatchObject({ code: 'bad_request', message: expect.any(String), requestId: expect.any(String) });
    expect(response).toContain(`x-request-id: ${body.error.requestId}\r\n`);
    expect(response.toLowerCase()).toContain('connection: close\r\n');
    // HTTP/1.0 needs no Host.
    expect(await rawExchange('GET /health HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('stalled headers: 408 request_timeout once the headers timeout passes', async () => {
    const response = await rawExchange('GET /health HTTP/1.1\r\nHost: x\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(response).error.code).toBe('request_timeout');
  });
});

describe('a database outage', () => {
  it('answers 503 database_unavailable with Retry-After on ingestion and on reads, and logs no message', async () => {
    const deadPool = createPool({ connectionString: `postgres://nobody:x@127.0.0.1:${await freePort()}/none`, max: 2, statementTimeoutMs: 0 });
    const outage = await buildApp(deps({ pool: deadPool, metrics: createMetrics(deadPool) }));
    try {
      lines.length = 0;
      const ingest = await outage.inject({
        method: 'POST',
        url: '/v1/events/batch',
        headers: { 'content-type': 'application/json', ...bearer(apiKey) },
        payload: '{"events":[]}',
      });
      const read = await outage.inject({ method: 'GET', url: '/v1/projects', headers: bearer(TEST_ADMIN_TOKEN) });
      for (const response of [ingest, read]) {
        expect(response.statusCode).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(response.json().error.code).toBe('database_unavailable');
      }
      expect(lines.filter((l) => l.msg === 'database unavailable').length).toBe(2);
      expect(JSON.stringify(lines)).not.toContain('ECONNREFUSED 127.0.0.1');
    } finally {
      await outage.close();
      await deadPool.end();
    }
  });
});

describe('duplicate Authorization headers', () => {
  it('are refused with 401 on ingestion and on admin routes, even when the first is valid', async () => {
    const send = (url: string, method: 'GET' | 'POST', token: string) =>
      rawExchange(
        `${method} ${url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n` +
          `Authorization: Bearer ${token}\r\nAuthorization: Bearer other\r\nContent-Length: 13\r\n\r\n{"events":[]}`,
      );
    for (const response of [await send('/v1/events/batch', 'POST', apiKey), await send('/v1/projects', 'GET', TEST_ADMIN_TOKEN)]) {
      expect(response).toMatch(/^HTTP\/1\.1 401 /);
      expect(bodyOf(response).error.code).toBe('unauthorized');
    }
  });
});
