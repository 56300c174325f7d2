// Delivery against servers that misbehave on purpose, over real local HTTP: an answer that never
// ends, a deeply nested one, a redirect to another origin, a request that hangs through shutdown,
// and the first full batch, whose send must not run inside the host's call.
import { spawn } from 'node:child_process';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../src/delivery.ts';
import { createRecorder } from '../src/recorder.ts';
import type { Diagnostic, RecorderOptions } from '../src/types.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

async function serve(handler: Handler): Promise<string> {
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => handler(request, response, body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function recorderAt(endpoint: string, extra: Partial<RecorderOptions> = {}, diagnostics: Diagnostic[] = []) {
  return createRecorder({
    endpoint,
    apiKey: 'jt_test_key',
    serviceName: 'orders',
    environment: 'production',
    openTelemetry: null,
    flushIntervalMs: 10,
    onDiagnostic: (diagnostic) => diagnostics.push(diagnostic),
    ...extra,
  });
}

function recordSome(recorder: ReturnType<typeof createRecorder>, count: number) {
  const journey = recorder.startJourney({ entity: { type: 'order', id: '1' } });
  for (let i = 0; i < count; i++) journey.record({ operation: 'received', name: `step-${i}` });
}

/**
 * Writes `chunk` until the client goes away or `limit` bytes are written (then ends the answer
 * unless `keepOpen`); resolves the bytes written.
 */
function writeUntilClosed(response: ServerResponse, chunk: Buffer, limit: number, keepOpen = false): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    const more = () => {
      while (written < limit && !response.destroyed) {
        written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      if (!response.destroyed && !keepOpen) response.end();
      resolve(written);
    };
    response.on('close', () => resolve(written));
    more();
  });
}

describe('the response body is read up to a cap', () => {
  it('an answer that never ends is not read past the cap: the batch settles as unconfirmed at once', async () => {
    let written: Promise<number> = Promise.resolve(0);
    const endpoint = await serve((_request, response) => {
      response.writeHead(202, { 'content-type': 'application/json' });
      // 3 GB if nobody stops reading.
      written = writeUntilClosed(response, Buffer.alloc(64 * 1024, 0x20), 3 * 1024 ** 3);
    });
    const recorder = recorderAt(endpoint, { requestTimeoutMs: 120_000 });
    recordSome(recorder, 3);
    expect(await recorder.flush({ timeoutMs: 10_000 })).toBe(true);
    expect(recorder.counters()).toMatchObject({ recorded: 3, sent: 3, unconfirmed: 3, requestFailures: 0 });
    // What was sent before the client stopped reading: the cap plus what socket buffers took.
    expect(await written).toBeLessThan(64 * 1024 * 1024);
    await recorder.shutdown({ timeoutMs: 100 });
  });

  it('a deeply nested answer over the cap is neither read to its end nor parsed', async () => {
    let written: Promise<number> = Promise.resolve(0);
    const depth = 16 * 1024 * 1024;
    const endpoint = await serve((_request, response) => {
      response.writeHead(202, { 'content-type': 'application/json' });
      // 32 MB of nesting, written as it is read: the opening brackets, then the closing ones.
      written = writeUntilClosed(response, Buffer.alloc(64 * 1024, '['), depth, true).then(async (opened) =>
        opened < depth || response.destroyed ? opened : opened + (await writeUntilClosed(response, Buffer.alloc(64 * 1024, ']'), depth)),
      );
    });
    const recorder = recorderAt(endpoint, { requestTimeoutMs: 120_000 });
    recordSome(recorder, 2);
    expect(await recorder.flush({ timeoutMs: 30_000 })).toBe(true);
    expect(recorder.counters()).toMatchObject({ sent: 2, unconfirmed: 2 });
    // The client stopped reading long before the end of the answer.
    expect(await written).toBeLessThan(2 * depth);
    await recorder.shutdown({ timeoutMs: 100 });
  });

  it('verdicts within the cap are still read, only as many as the batch', async () => {
    const endpoint = await serve((_request, response, body) => {
      const events = (JSON.parse(body) as { events: Array<{ event: { id: string } }> }).events;
      const results = events.map((envelope) => ({ eventId: envelope.event.id, status: 'accepted', duplicate: false }));
      // Extra verdicts and padding up to just under the cap.
      const answer = JSON.stringify({ data: { results: [...results, ...results] } });
      response.writeHead(202, { 'content-type': 'application/json' }).end(answer.padEnd(MAX_RESPONSE_BYTES - 1, ' '));
    });
    const recorder = recorderAt(endpoint);
    recordSome(recorder, 4);
    expect(await recorder.flush({ timeoutMs: 10_000 })).toBe(true);
    expect(recorder.counters()).toMatchObject({ sent: 4, unconfirmed: 0, rejected: 0 });
    await recorder.shutdown({ timeoutMs: 100 });
  });
});

describe('redirects', () => {
  it('a 307 to another origin is not followed: nothing reaches it, the batch is dropped and said so', async () => {
    const elsewhere: string[] = [];
    const other = await serve((request, response, body) => {
      elsewhere.push(`${request.headers.authorization ?? ''} ${body}`);
      response.writeHead(202).end('{}');
    });
    const endpoint = await serve((_request, response) => {
      response.writeHead(307, { location: `${other}/v1/events/batch` }).end();
    });
    const diagnostics: Diagnostic[] = [];
    const recorder = recorderAt(endpoint, {}, diagnostics);
    recordSome(recorder, 2);
    expect(await recorder.flush({ timeoutMs: 5_000 })).toBe(true);
    expect(elsewhere).toEqual([]);
    expect(recorder.counters()).toMatchObject({ sent: 0, dropped: 2, droppedByCause: expect.objectContaining({ request_refused: 2 }) });
    expect(diagnostics.some((d) => d.kind === 'transport_error' && d.message.includes('redirect (HTTP 307)'))).toBe(true);
    await recorder.shutdown({ timeoutMs: 100 });
  });
});

describe('shutdown', () => {
  it('once it resolves no request starts and the process exits at once, though a request hung', async () => {
    const arrivals: number[] = [];
    // Never answers.
    const endpoint = await serve(() => arrivals.push(Date.now()));
    const script = fileURLToPath(new URL('./fixtures/shutdown-then-exit.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, endpoint], { cwd: fileURLToPath(new URL('../../..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = await new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })));
    const report = JSON.parse(out.trim()) as { resolvedAt: number; counters: Record<string, unknown> };
    expect(exited.code).toBe(0);
    // requestTimeoutMs is 20 s: a process held by a request or its timer would take that long.
    expect(exited.at - report.resolvedAt).toBeLessThan(5_000);
    expect(arrivals.filter((at) => at > report.resolvedAt)).toEqual([]);
    expect(arrivals).toHaveLength(1);
    expect(report.counters).toMatchObject({ recorded: 5, sent: 0, dropped: 5, queued: 0, inFlight: 0 });
  });
});

describe('the first full batch', () => {
  it('is sent after the host’s call that filled it returns, not inside it', async () => {
    const received: number[] = [];
    const endpoint = await serve((_request, response, body) => {
      const events = (JSON.parse(body) as { events: Array<{ event: { id: string } }> }).events;
      received.push(events.length);
      response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { results: events.map((e) => ({ eventId: e.event.id, status: 'accepted' })) } }));
    });
    let calls = 0;
    // The real fetch, counted: nothing is stood in for.
    const counted: typeof fetch = (input, init) => {
      calls += 1;
      return globalThis.fetch(input, init);
    };
    const recorder = recorderAt(endpoint, { batchSize: 2, flushIntervalMs: 60_000, fetch: counted });
    const journey = recorder.startJourney({ entity: { type: 'order', id: '1' } });
    journey.record({ operation: 'received', name: 'a' });
    journey.record({ operation: 'received', name: 'b' });
    expect(calls).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    expect(await recorder.flush({ timeoutMs: 5_000 })).toBe(true);
    expect(received).toEqual([2]);
    await recorder.shutdown({ timeoutMs: 100 });
  });
});
