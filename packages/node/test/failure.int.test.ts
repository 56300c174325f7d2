import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/free-port.ts';
import { createRecorder, type Recorder } from '../src/recorder.ts';
import type { Counters, Diagnostic, RecorderOptions } from '../src/types.ts';
import { type LiveServer, startLiveServer } from './server.ts';

/**
 * The host must never notice the recorder's trouble: against a server that is down, slow,
 * answering 500 or refusing, wrapped calls return their own values and throw their own errors,
 * memory stays bounded, counters add up and shutdown keeps its deadline.
 */
let jtrace: LiveServer;
let apiKey: string;
const servers: Server[] = [];

async function stubServer(handler: (reply: (status: number) => void) => void): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => handler((status) => response.writeHead(status, { 'content-type': 'application/json' }).end('{}')));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  jtrace = await startLiveServer();
  apiKey = await jtrace.project('production');
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await jtrace?.close();
});

function recorderAt(endpoint: string, extra: Partial<RecorderOptions> = {}, diagnostics: Diagnostic[] = []): Recorder {
  return createRecorder({
    endpoint,
    apiKey,
    serviceName: 'orders',
    environment: 'production',
    openTelemetry: null,
    flushIntervalMs: 20,
    onDiagnostic: (diagnostic) => diagnostics.push(diagnostic),
    ...extra,
  });
}

/** The host's own functions through the wrappers: values and error objects come back untouched. */
async function hostCallsAreUntouched(recorder: Recorder): Promise<void> {
  const journey = recorder.startJourney({ entity: { type: 'order', id: 'ord_1' } });
  const value = { total: 42 };
  expect(journey.transform('map', { a: 1 }, () => value)).toBe(value);
  const error = new Error('host failure');
  expect(() => journey.validate('check', {}, () => { throw error; })).toThrow(error);
  await expect(journey.deliver('send', {}, async () => 'sent')).resolves.toBe('sent');
  const rejection = journey.persist('save', {}, () => Promise.reject(error));
  await expect(rejection).rejects.toBe(error);
}

function addsUp(counters: Counters): void {
  expect(counters.sent + counters.rejected + counters.dropped).toBe(counters.recorded);
}

async function shutdownWithin(recorder: Recorder, timeoutMs: number): Promise<void> {
  const started = Date.now();
  await recorder.shutdown({ timeoutMs });
  expect(Date.now() - started).toBeLessThan(timeoutMs + 250);
  addsUp(recorder.counters());
}

/** The heap still reachable: a full collection first (the flag is set for this process only). */
function retainedHeap(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

describe('recorder failure modes', () => {
  it('server down: host unaffected, breaker opens, memory bounded over 100,000 events', async () => {
    const diagnostics: Diagnostic[] = [];
    const recorder = recorderAt(`http://127.0.0.1:${await freePort()}`, { breakerThreshold: 3 }, diagnostics);
    await hostCallsAreUntouched(recorder);
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'ord_2' } });
    const payload = { note: 'x'.repeat(200), lines: [{ sku: 'A', quantity: 1 }] };
    const before = retainedHeap();
    for (let i = 0; i < 100_000; i++) journey.record({ operation: 'received', name: 'bulk', input: payload });
    const grownMb = (retainedHeap() - before) / 1e6;
    const counters = recorder.counters();
    expect(counters.queued).toBeLessThanOrEqual(10_000);
    expect(counters.inFlight).toBeLessThanOrEqual(100);
    // Nothing can be sent: every event is either still held or dropped as the oldest.
    expect(counters.droppedByCause.queue_full + counters.queued + counters.inFlight).toBe(counters.recorded);
    // 10,000 queued events of about 1 KB each, measured after a collection so that garbage a
    // busy machine has not collected yet does not count.
    expect(grownMb).toBeLessThan(100);
    await recorder.flush({ timeoutMs: 2_500 });
    expect(diagnostics.some((d) => d.kind === 'breaker_opened')).toBe(true);
    await shutdownWithin(recorder, 300);
    expect(recorder.counters().recorded).toBe(100_004);
  }, 90_000);

  it('server slow past the request timeout: requests fail, the host does not wait', async () => {
    const url = await stubServer(() => {});
    const recorder = recorderAt(url, { requestTimeoutMs: 150 });
    await hostCallsAreUntouched(recorder);
    expect(await recorder.flush({ timeoutMs: 1_000 })).toBe(false);
    expect(recorder.counters().requestFailures).toBeGreaterThanOrEqual(1);
    await shutdownWithin(recorder, 300);
  });

  it('server answering 500: events are kept for resending, then dropped at shutdown', async () => {
    let requests = 0;
    const url = await stubServer((reply) => {
      requests += 1;
      reply(500);
    });
    const recorder = recorderAt(url);
    await hostCallsAreUntouched(recorder);
    expect(await recorder.flush({ timeoutMs: 1_500 })).toBe(false);
    expect(requests).toBeGreaterThanOrEqual(2);
    await shutdownWithin(recorder, 200);
    expect(recorder.counters()).toMatchObject({ recorded: 4, dropped: 4, droppedByCause: { shutdown: 4 } });
  });

  it('server refusing: a bad key drops the request, another environment rejects each event', async () => {
    const badKey = createRecorder({ endpoint: jtrace.url, apiKey: 'jt_not_a_key', serviceName: 'orders', environment: 'production', openTelemetry: null, onDiagnostic: () => {} });
    await hostCallsAreUntouched(badKey);
    expect(await badKey.flush()).toBe(true);
    expect(badKey.counters()).toMatchObject({ recorded: 4, dropped: 4, droppedByCause: { request_refused: 4 } });
    await shutdownWithin(badKey, 1_000);

    const diagnostics: Diagnostic[] = [];
    const otherEnvironment = recorderAt(jtrace.url, { environment: 'staging' }, diagnostics);
    await hostCallsAreUntouched(otherEnvironment);
    expect(await otherEnvironment.flush()).toBe(true);
    expect(otherEnvironment.counters()).toMatchObject({ recorded: 4, rejected: 4 });
    expect(diagnostics.filter((d) => d.kind === 'event_rejected').map((d) => d.detail?.code)).toEqual(Array(4).fill('unauthorized_environment'));
    await shutdownWithin(otherEnvironment, 1_000);
  });

  it('server up: everything recorded is sent', async () => {
    const recorder = recorderAt(jtrace.url);
    await hostCallsAreUntouched(recorder);
    await shutdownWithin(recorder, 5_000);
    expect(recorder.counters()).toMatchObject({ recorded: 4, sent: 4 });
  });
});
