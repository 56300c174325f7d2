import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { buildApp } from '../app.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, testConfig } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { freePort } from '../../test/helpers/free-port.ts';

/**
 * A stopping instance (SIGTERM calls app.close()) finishes the requests it is serving and answers
 * any further request on a connection it still holds with 503 `shutting_down`, Retry-After and
 * Connection: close, in the error shape, so a client or proxy sends it to another instance.
 */

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('a request that reaches an instance while it stops', () => {
  it('is answered 503 shutting_down with Retry-After and Connection: close, after the request in flight finishes', async () => {
    const app = await buildApp({
      config: testConfig(), pool: db.pool, keyring: createKeyring({ current: TEST_ENCRYPTION_KEY }), adminToken: TEST_ADMIN_TOKEN,
      logger: pino({ level: 'silent' }), metrics: createMetrics(db.pool), build: { version: '0.0.0', source: 'package' },
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    app.get('/v1/test/slow', async () => {
      started();
      await held;
      return { done: true };
    });
    const port = await freePort();
    await app.listen({ host: '127.0.0.1', port });
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // A keep-alive connection busy with a request when the stop begins (so close() cannot reap it
    // as idle); the next request on it comes once the first is answered, as a proxy's reused
    // connection sends it.
    socket.write('GET /v1/test/slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await inFlight;
    const stopping = app.close();
    // close() runs its hooks over a few turns of the event loop: let it begin before the first
    // answer frees the connection for the second request.
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    while (!Buffer.concat(chunks).toString('latin1').includes('{"done":true}')) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await stopping;
    await closed;
    const text = Buffer.concat(chunks).toString('latin1');
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(answers[0]).toContain('{"done":true}');
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(answers[1]!.toLowerCase()).toContain('retry-after: 1');
    expect(answers[1]!.toLowerCase()).toContain('connection: close');
    const body = JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };
    expect(body.error.code).toBe('shutting_down');
  });
});
