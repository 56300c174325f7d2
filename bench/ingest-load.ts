// The load side of bench/ingest.ts: benchmark events (about 1 KB each, realistic input and
// output objects) and the load generator, which runs in a child process of its own so that it
// never shares the server's event loop (it still shares the machine's cores).

import { randomBytes, randomUUID } from 'node:crypto';
import { Pool as HttpPool } from 'undici';
import { runInChild, serveChildJob } from './bench-server.ts';

export const BATCH_SIZE = 100;
/** Every timed phase stops taking new work after this long, finished or not. */
export const PHASE_LIMIT_MS = 180_000;
/** Set in the load generator's environment: its job, as JSON. */
const LOAD_JOB_VARIABLE = 'JTRACE_BENCH_LOAD_JOB';

const SERVICES = ['gateway', 'checkout', 'payments', 'shipping'];
const STEPS: Array<[string, string]> = [['received', 'order received'], ['validated', 'validate order'], ['delivered', 'charge card'], ['completed', 'order completed']];

/**
 * One step of a journey. Its output has another shape than its input, so every input field reads
 * as lost there (35 findings per journey: the findings benchmark's worst case); `carried`, each
 * step passes its input on with a status of its own and the next step takes that output as its
 * input, as a pipeline that loses nothing does (a status changed per step: three findings).
 */
/**
 * The day the benchmark's events happen: two days before the run, so that no retention sweep
 * (30 days by default) deletes journeys while they are written and read.
 */
const EVENTS_DAY_MS = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000;
/** A `since` before every benchmark event, for the reads. */
export const EVENTS_SINCE = new Date(EVENTS_DAY_MS - 86_400_000).toISOString();

export function makeEvent(tag: string, journey: number, step: number, carried = false) {
  const [operation, name] = STEPS[step]!;
  const orderId = `ord_${tag}_${journey}`;
  const input = {
    orderId, customer: { id: `cus_${journey}X9a`, email: `buyer${journey}@example.com`, name: 'Ada Lovelace', tier: 'gold' },
    items: [{ sku: 'SKU-10021', name: 'Espresso beans 1kg', qty: 2, unitPrice: 18.5 }, { sku: 'SKU-20417', name: 'Grinder', qty: 1, unitPrice: 129 }],
    currency: 'EUR', shipping: { street: '12 Rue de la Paix', city: 'Paris', postcode: '75002', country: 'FR' },
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk_live_abc123def456', 'x-request-id': carried ? `req_${tag}_${journey}` : randomUUID() },
  };
  return {
    protocolVersion: '0.1',
    event: {
      id: `evt_${randomUUID()}`, journeyId: `jrn_${tag}_${journey}`, environment: 'production', service: SERVICES[step]!,
      entity: { type: 'order', id: orderId }, operation, name,
      timestamp: new Date(EVENTS_DAY_MS + 36_000_000 + journey * 1000 + step * 37).toISOString(),
      durationMs: 12 + step * 7, traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'),
      ...(step === 0 ? { aliases: { email: `buyer${journey}@example.com`, stripeCustomer: `cus_${journey}X9a` }, displayableAliases: ['stripeCustomer'] } : {}),
      input: carried && step > 0 ? { ...input, status: `step-${step - 1}` } : input,
      output: carried
        ? { ...input, status: `step-${step}` }
        : { orderId, status: step === 3 ? 'completed' : 'accepted', total: 166, tax: 27.67, warehouse: 'PAR-2', eta: '2026-08-09' },
      metadata: { attempt: 1, httpStatus: 200 },
      runtime: { language: 'node', version: '20.19.0', hostname: 'worker-3', sdk: { name: 'jtrace-node', version: '0.1.0' } },
    },
  };
}

/**
 * 100 events: 25 new journeys of four steps each (`carried`: steps that lose nothing), or
 * (`journeys`) 100 new journeys of one first step each, the shape that writes the most journey
 * rows, aliases and tokens per event.
 */
export function makeBatch(tag: string, shape: BatchShape = 'steps'): unknown[] {
  const events: unknown[] = [];
  if (shape === 'journeys') {
    for (let journey = 0; journey < BATCH_SIZE; journey++) events.push(makeEvent(tag, journey, 0));
    return events;
  }
  for (let journey = 0; journey < BATCH_SIZE / 4; journey++) for (let step = 0; step < 4; step++) events.push(makeEvent(tag, journey, step, shape === 'carried'));
  return events;
}

export type BatchShape = 'steps' | 'journeys' | 'carried';

/**
 * batch / single: POST new events. reads: GET each of `reads` (paths) in turn, each under the key
 * of the same place in `readKeys` when given. With
 * `eventsPerSecond`, requests start on a fixed schedule (at most that rate) instead of back to back.
 */
export interface LoadJob {
  baseUrl: string; apiKey: string; mode: 'batch' | 'single' | 'reads'; clients: number; warmup: number; count: number;
  eventsPerSecond?: number; reads?: string[]; readKeys?: string[]; shape?: BatchShape;
  /**
   * Batch mode: send for this long instead of `count` requests, each batch made at send time
   * from one template with its own journeys and event ids (a long run's payloads are not all
   * held in memory at once, and making one costs a string replace).
   */
  durationMs?: number;
}
export interface LoadResult { elapsedMs: number; latencies: number[]; done: number; failures: number }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runLoad(job: LoadJob): Promise<LoadResult> {
  const http = new HttpPool(job.baseUrl, { connections: job.clients, keepAliveTimeout: 30_000 });
  const route = job.mode === 'batch' ? '/v1/events/batch' : '/v1/events';
  const body = (i: number, tag: string) => JSON.stringify(job.mode === 'batch' ? { events: makeBatch(`${job.mode}${i}_${tag}`, job.shape) } : makeEvent(`s${i}_${tag}`, i, i % 4));
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${job.apiKey}` };
  let failures = 0;
  const send = async (payload: string, i: number) => {
    const started = performance.now();
    const readKey = job.readKeys?.[i % job.readKeys.length];
    const response = job.mode === 'reads'
      ? await http.request({ path: payload, method: 'GET', headers: readKey ? { ...headers, authorization: `Bearer ${readKey}` } : headers })
      : await http.request({ path: route, method: 'POST', body: payload, headers });
    const text = await response.body.text();
    const ms = performance.now() - started;
    const expected = job.mode === 'reads' ? 200 : 202;
    const ok = response.statusCode === expected && (job.mode !== 'batch' || !text.includes('"rejected"'));
    if (!ok) failures++;
    return ms;
  };
  const perRequest = job.mode === 'batch' ? BATCH_SIZE : 1;
  const intervalMs = job.eventsPerSecond ? (perRequest * 1000) / job.eventsPerSecond : 0;
  /** `clients` loops take the next request until `count` are sent or the phase limit passes. */
  const phase = async (count: number, latencies: number[]) => {
    const tag = randomUUID().slice(0, 8); // new journeys in every phase
    const payloads = Array.from({ length: count }, (_, i) => (job.mode === 'reads' ? job.reads![i % job.reads!.length]! : body(i, tag))); // built before timing
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: job.clients }, async () => {
      while (next < count && performance.now() - started < PHASE_LIMIT_MS) {
        const i = next++;
        const wait = started + i * intervalMs - performance.now();
        if (wait > 0) await sleep(wait);
        latencies[i] = await send(payloads[i]!, i);
      }
    }));
    return performance.now() - started;
  };
  /** Batches made from a template until `durationMs` has passed. */
  const timedPhase = async (durationMs: number, latencies: number[]) => {
    const runTag = randomUUID().slice(0, 8);
    const template = JSON.stringify({ events: makeBatch('@TAG@', job.shape) });
    const made = (i: number) => template.replaceAll('@TAG@', `${runTag}${i}`).replace(/evt_[0-9a-f-]{36}/g, () => `evt_${randomUUID()}`);
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: job.clients }, async () => {
      while (performance.now() - started < durationMs) {
        const i = next++;
        const wait = started + i * intervalMs - performance.now();
        if (wait > 0) await sleep(wait);
        if (performance.now() - started >= durationMs) break;
        latencies[i] = await send(made(i), i);
      }
    }));
    return performance.now() - started;
  };
  await phase(job.warmup, []);
  failures = 0;
  const latencies: number[] = [];
  const elapsedMs = job.durationMs !== undefined && job.mode === 'batch' ? await timedPhase(job.durationMs, latencies) : await phase(job.count, latencies);
  await http.close();
  const done = latencies.filter((ms) => ms !== undefined);
  return { elapsedMs, latencies: job.mode === 'reads' ? latencies : done, done: done.length, failures };
}

/** Runs the load in a child process of this same file. */
export function inChild(job: LoadJob): Promise<LoadResult> {
  return runInChild(import.meta.url, LOAD_JOB_VARIABLE, job);
}

await serveChildJob(LOAD_JOB_VARIABLE, runLoad);
