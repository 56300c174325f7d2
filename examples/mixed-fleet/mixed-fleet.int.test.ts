import { type ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createRecorder } from '@jtrace/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, getJson, startLiveServer } from '../../packages/node/test/server.ts';
import { PYTHON_SOURCE, findPython } from '../../packages/python/test/python.ts';
import { createOrderService } from './order-service.ts';

/** A Node service and a Python worker, one journey, against the real jtrace server and database. */
const python = findPython();
if (python === null) console.warn('Mixed fleet example skipped: no python3 (3.9 or later) was found.');

let jtrace: LiveServer;
let apiKey: string;
let worker: ChildProcess | undefined;
let orderService: Server | undefined;

function startWorker(): Promise<string> {
  worker = spawn(python as string, [fileURLToPath(new URL('./shipping_worker.py', import.meta.url))], {
    env: { ...process.env, PYTHONPATH: PYTHON_SOURCE, PYTHONDONTWRITEBYTECODE: '1', JTRACE_URL: jtrace.url, JTRACE_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    worker?.stdout?.once('data', (chunk: Buffer) => resolve(`http://127.0.0.1:${chunk.toString().trim()}`));
    worker?.once('exit', (code) => reject(new Error(`the worker exited early (${code})`)));
  });
}

function stopWorker(): Promise<number | null> {
  return new Promise((resolve) => {
    if (worker === undefined || worker.exitCode !== null) return resolve(worker?.exitCode ?? null);
    worker.once('exit', (code) => resolve(code));
    worker.kill('SIGTERM');
  });
}

beforeAll(async () => {
  if (python === null) return;
  jtrace = await startLiveServer();
  apiKey = await jtrace.project('production');
});
afterAll(async () => {
  await stopWorker();
  if (orderService) await new Promise((resolve) => orderService?.close(resolve));
  await jtrace?.close();
});

describe.skipIf(python === null)('mixed fleet: a Node order service calls a Python shipping worker', () => {
  it('makes one journey across both, shows where the phone was lost, and completes', async () => {
    const workerUrl = await startWorker();
    const recorder = createRecorder({ endpoint: jtrace.url, apiKey, serviceName: 'order-service', environment: 'production', openTelemetry: null, onDiagnostic: () => {} });
    orderService = createOrderService(recorder, workerUrl);
    await new Promise<void>((resolve) => orderService?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(orderService.address() as AddressInfo).port}`;

    const orderId = `ord_mixed_${Date.now()}`;
    const placed = await fetch(`${url}/orders`, {
      method: 'POST',
      body: JSON.stringify({ orderId, customer: { name: 'Ada', email: 'ada@example.com', phone: '+44 20 7946 0000' }, items: [{ sku: 'SKU-1', quantity: 2 }] }),
    });
    expect(placed.status).toBe(202);
    expect(await placed.json()).toEqual({ labelId: `LBL-${orderId}` });
    expect(await recorder.shutdown({ timeoutMs: 5_000 })).toBe(true);
    expect(recorder.counters().sent).toBe(recorder.counters().recorded);
    // SIGTERM: the worker stops serving and its recorder sends what it holds before the exit.
    expect(await stopWorker()).toBe(0);

    const found = await getJson(`${jtrace.url}/v1/search?q=${orderId}`, apiKey);
    expect(found.body.data.items).toHaveLength(1);
    const journeyId = found.body.data.items[0].journeyId as string;
    const journey = (await getJson(`${jtrace.url}/v1/journeys/${journeyId}`, apiKey)).body.data;
    expect(journey).toMatchObject({ status: 'completed', label: `Order ${orderId}`, services: ['order-service', 'shipping-worker'] });

    const events = (await getJson(`${jtrace.url}/v1/journeys/${journeyId}/events?limit=100`, apiKey)).body.data.items as Array<Record<string, any>>;
    expect(new Set(events.map((event) => `${event.service}:${event.operation}:${event.name}`))).toEqual(
      new Set([
        'order-service:received:receive-order',
        'order-service:validated:validate-order',
        'order-service:delivered:send-to-shipping',
        'shipping-worker:received:accept-shipment',
        'shipping-worker:transformed:prepare-shipping-label',
        'shipping-worker:persisted:store-label',
        'shipping-worker:completed:shipment-ready',
      ]),
    );
    // The worker's first step names the Node step that called it as its parent.
    const accept = events.find((event) => event.name === 'accept-shipment');
    const send = events.find((event) => event.name === 'send-to-shipping');
    const acceptDetail = (await getJson(`${jtrace.url}/v1/events/${accept?.id}`, apiKey)).body.data;
    expect(acceptDetail.parentEventId).toBeDefined();
    expect(events.map((event) => event.id)).toContain(acceptDetail.parentEventId);
    expect(send).toBeDefined();

    const phone = (await getJson(`${jtrace.url}/v1/journeys/${journeyId}/fields?path=customer.phone`, apiKey)).body.data;
    expect(phone.firstLoss).toMatchObject({ service: 'shipping-worker', name: 'prepare-shipping-label', verdict: 'lost', inTransit: false });
  }, 60_000);
});
