import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRecorder } from '@jtrace/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, getJson, startLiveServer } from '../../packages/node/test/server.ts';
import { PYTHON_SOURCE, findPython } from '../../packages/python/test/python.ts';
import { findGo, goEnv, runGo } from '../../packages/go/test/go.ts';
import { createPricingService } from './pricing-service.ts';

/** A Go service, a Node service and a Python worker, one journey, against the real jtrace server. */
const go = findGo();
const python = findPython();
const missing = [go === null ? 'go' : null, python === null ? 'python3 (3.9 or later)' : null].filter((m) => m !== null);
if (missing.length > 0) console.warn(`Go fleet example skipped: no ${missing.join(' and no ')} was found.`);

let jtrace: LiveServer;
let apiKey: string;
let buildDir: string;
const children: ChildProcess[] = [];
let pricing: Server | undefined;

/** Starts a process that prints its port on its first line. */
function startChild(command: string, args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(`http://127.0.0.1:${chunk.toString().trim()}`));
    child.once('exit', (code) => reject(new Error(`${path.basename(command)} exited early (${code})`)));
  });
}

function stop(child: ChildProcess | undefined): Promise<number | null> {
  return new Promise((resolve) => {
    if (child === undefined || child.exitCode !== null) return resolve(child?.exitCode ?? null);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

beforeAll(async () => {
  if (missing.length > 0) return;
  jtrace = await startLiveServer();
  apiKey = await jtrace.project('production');
  buildDir = mkdtempSync(path.join(tmpdir(), 'jtrace-go-fleet-'));
}, 60_000);
afterAll(async () => {
  for (const child of children) await stop(child);
  if (pricing) await new Promise((resolve) => pricing?.close(resolve));
  await jtrace?.close();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

describe.skipIf(missing.length > 0)('Go fleet: a Go order service, a Node pricing service, a Python shipping worker', () => {
  it('makes one journey across the three, and forensics finds the phone lost at the Go step', async () => {
    const binary = path.join(buildDir, 'order-intake');
    const built = await runGo(go as string, ['build', '-o', binary, '.'], {}, fileURLToPath(new URL('./order-intake/', import.meta.url)));
    expect(built.code, built.output).toBe(0);

    const workerUrl = await startChild(python as string, [fileURLToPath(new URL('../mixed-fleet/shipping_worker.py', import.meta.url))], {
      PYTHONPATH: PYTHON_SOURCE, PYTHONDONTWRITEBYTECODE: '1', JTRACE_URL: jtrace.url, JTRACE_API_KEY: apiKey,
    });
    const recorder = createRecorder({ endpoint: jtrace.url, apiKey, serviceName: 'pricing-service', environment: 'production', openTelemetry: null, onDiagnostic: () => {} });
    pricing = createPricingService(recorder, workerUrl);
    await new Promise<void>((resolve) => pricing?.listen(0, '127.0.0.1', resolve));
    const pricingUrl = `http://127.0.0.1:${(pricing.address() as AddressInfo).port}`;
    const intakeUrl = await startChild(binary, [], { ...goEnv(), JTRACE_URL: jtrace.url, JTRACE_API_KEY: apiKey, PRICING_URL: pricingUrl });

    const orderId = `ord_go_${Date.now()}`;
    const placed = await fetch(`${intakeUrl}/orders?orderId=${orderId}`, {
      method: 'POST',
      body: JSON.stringify({ orderId, customer: { name: 'Ada', email: 'ada@example.com', phone: '+44 20 7946 0000' }, items: [{ sku: 'SKU-1', quantity: 2 }] }),
    });
    expect(placed.status).toBe(202);
    expect(await placed.json()).toEqual({ totalCents: 2500, labelId: `LBL-${orderId}` });
    expect(await recorder.shutdown({ timeoutMs: 5_000 })).toBe(true);
    // SIGTERM: each process stops serving and its recorder sends what it holds before the exit.
    expect(await stop(children[1])).toBe(0);
    expect(await stop(children[0])).toBe(0);

    const found = await getJson(`${jtrace.url}/v1/search?q=${orderId}`, apiKey);
    expect(found.body.data.items).toHaveLength(1);
    const journeyId = found.body.data.items[0].journeyId as string;
    const journey = (await getJson(`${jtrace.url}/v1/journeys/${journeyId}`, apiKey)).body.data;
    expect(journey).toMatchObject({ status: 'completed', label: `Order ${orderId}` });
    expect(new Set(journey.services)).toEqual(new Set(['order-intake', 'pricing-service', 'shipping-worker']));

    const events = (await getJson(`${jtrace.url}/v1/journeys/${journeyId}/events?limit=100`, apiKey)).body.data.items as Array<Record<string, any>>;
    expect(new Set(events.map((event) => `${event.service}:${event.operation}:${event.name}`))).toEqual(
      new Set([
        'order-intake:received:receive-order',
        'order-intake:transformed:normalize-order',
        'order-intake:delivered:send-to-pricing',
        'pricing-service:transformed:price-order',
        'pricing-service:delivered:send-to-shipping',
        'shipping-worker:received:accept-shipment',
        'shipping-worker:transformed:prepare-shipping-label',
        'shipping-worker:persisted:store-label',
        'shipping-worker:completed:shipment-ready',
      ]),
    );
    // The Node step names the Go step that called it as its parent.
    const price = events.find((event) => event.name === 'price-order');
    const priceDetail = (await getJson(`${jtrace.url}/v1/events/${price?.id}`, apiKey)).body.data;
    expect(priceDetail.parentEventId).toBe(events.find((event) => event.name === 'normalize-order')?.id);

    const phone = (await getJson(`${jtrace.url}/v1/journeys/${journeyId}/fields?path=customer.phone`, apiKey)).body.data;
    expect(phone.firstLoss).toMatchObject({ service: 'order-intake', name: 'normalize-order', verdict: 'lost', inTransit: false });
  }, 300_000);
});
