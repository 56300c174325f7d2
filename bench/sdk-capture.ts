// One round of the SDK's capture-cost measurement, run by bench/sdk.ts in a fresh process each
// time: which code the JIT settles on is decided per process, so one process is one sample of
// it. Prints one JSON line: per-call medians and p99s of the bare and the wrapped call.
import { createRecorder } from '../packages/node/src/recorder.ts';

const CALLS = 50_000;
const WARMUP_CALLS = 10_000;

export interface CaptureRound {
  calls: number;
  warmupCalls: number;
  inputBytes: number;
  outputBytes: number;
  bareMedianUs: number;
  bareP99Us: number;
  wrappedMedianUs: number;
  wrappedP99Us: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** About 1 KB of JSON, shaped like an order. */
function orderOfAboutOneKb(seed: number) {
  return {
    orderId: `ord_${seed}`,
    customer: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000', address: { line1: '12 Analytical Row', city: 'London', postcode: 'N1 9GU' } },
    items: Array.from({ length: 8 }, (_, i) => ({ sku: `SKU-${1000 + i}`, title: `Item number ${i} with a name`, quantity: i + 1, unitPrice: 1250 + i })),
    notes: 'Leave at the door; ring twice. '.repeat(6),
    createdAt: '2026-11-23T10:00:00.000Z',
  };
}

/** Times each call alone; yields to the event loop every 500 calls, as a serving host does, so queued events get sent. */
async function timeCalls(run: (i: number) => unknown, count: number): Promise<number[]> {
  const times = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    const start = performance.now();
    run(i);
    times[i] = (performance.now() - start) * 1000;
  }
  return times.sort((a, b) => a - b);
}

async function measureCaptureRound(): Promise<CaptureRound> {
  const stubFetch = (async (_url: unknown, init?: RequestInit) => {
    const events = (JSON.parse(String(init?.body)) as { events: unknown[] }).events;
    return new Response(JSON.stringify({ data: { results: events.map(() => ({ status: 'accepted' })) } }), { status: 202 });
  }) as typeof fetch;
  const recorder = createRecorder({ endpoint: 'http://stub.invalid', apiKey: 'k', serviceName: 'bench', environment: 'production', fetch: stubFetch, openTelemetry: null, maxQueueSize: 1_000_000, onDiagnostic: () => {} });
  const journey = recorder.startJourney({ entity: { type: 'order', id: 'ord_1' } });
  const input = orderOfAboutOneKb(1);
  const output = { ...orderOfAboutOneKb(2), status: 'normalized' };
  const bare = (value: typeof input) => (value.orderId === '' ? input : output);
  await timeCalls(() => bare(input), WARMUP_CALLS);
  await timeCalls(() => journey.transform('normalize-order', input, bare), WARMUP_CALLS);
  const bareTimes = await timeCalls(() => bare(input), CALLS);
  const wrappedTimes = await timeCalls(() => journey.transform('normalize-order', input, bare), CALLS);
  await recorder.shutdown({ timeoutMs: 10_000 });
  return {
    calls: CALLS,
    warmupCalls: WARMUP_CALLS,
    inputBytes: Buffer.byteLength(JSON.stringify(input)),
    outputBytes: Buffer.byteLength(JSON.stringify(output)),
    bareMedianUs: percentile(bareTimes, 50),
    bareP99Us: percentile(bareTimes, 99),
    wrappedMedianUs: percentile(wrappedTimes, 50),
    wrappedP99Us: percentile(wrappedTimes, 99),
  };
}

console.log(JSON.stringify(await measureCaptureRound()));
