// Pick-up of the active OpenTelemetry span with a real tracer and context manager (the SDK only
// reads `@opentelemetry/api`, an optional peer; the tracer provider here is the host's part).
import * as api from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecorder } from './recorder.ts';
import { baseOptions, fakeFetch } from './test-fetch.ts';

const provider = new NodeTracerProvider();

beforeAll(() => {
  // Installs the tracer provider and an AsyncLocalStorage context manager globally, as a host does.
  provider.register();
});

afterAll(async () => {
  await provider.shutdown();
  api.trace.disable();
  api.context.disable();
  api.propagation.disable();
});

/** Runs `body` inside a real active span and returns that span's ids. */
function inActiveSpan(body: () => void): { traceId: string; spanId: string } {
  return api.trace.getTracer('jtrace-sdk-test').startActiveSpan('handle-order', (span) => {
    try {
      body();
      return span.spanContext();
    } finally {
      span.end();
    }
  });
}

describe('OpenTelemetry span pick-up', () => {
  it('the event of a step recorded inside an active span carries its trace and span ids', async () => {
    const fake = fakeFetch();
    const recorder = createRecorder({ ...baseOptions(fake.fetch), openTelemetry: api });
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'ord_1' } });
    const ids = inActiveSpan(() => journey.transform('normalize-order', { a: 1 }, (input) => input));
    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(ids.spanId).toMatch(/^[0-9a-f]{16}$/);
    await recorder.flush();
    expect(fake.events()).toHaveLength(1);
    expect(fake.events()[0]).toMatchObject({ traceId: ids.traceId, spanId: ids.spanId });
  });

  it('a span survives an await inside the wrapped function, and each step gets the span it ran in', async () => {
    const fake = fakeFetch();
    const recorder = createRecorder({ ...baseOptions(fake.fetch), openTelemetry: api });
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'ord_1' } });
    const first = await api.trace.getTracer('jtrace-sdk-test').startActiveSpan('async-step', async (span) => {
      await journey.persist('save-order', { a: 1 }, async (input) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return input;
      });
      span.end();
      return span.spanContext();
    });
    const second = inActiveSpan(() => journey.publish('announce-order', { a: 1 }, (input) => input));
    await recorder.flush();
    const events = fake.events();
    expect(events.map((event) => [event.traceId, event.spanId])).toEqual([
      [first.traceId, first.spanId],
      [second.traceId, second.spanId],
    ]);
  });

  it('a step recorded outside any span carries no trace or span id', async () => {
    const fake = fakeFetch();
    const recorder = createRecorder({ ...baseOptions(fake.fetch), openTelemetry: api });
    expect(api.trace.getActiveSpan()).toBeUndefined();
    recorder.startJourney({ entity: { type: 'order', id: 'ord_1' } }).transform('normalize-order', { a: 1 }, (input) => input);
    await recorder.flush();
    expect(fake.events()).toHaveLength(1);
    expect(fake.events()[0]).not.toHaveProperty('traceId');
    expect(fake.events()[0]).not.toHaveProperty('spanId');
  });

  it('finds @opentelemetry/api by itself when it is installed, from the first step on', async () => {
    const fake = fakeFetch();
    const { openTelemetry: _unset, ...options } = baseOptions(fake.fetch);
    const recorder = createRecorder(options);
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'ord_1' } });
    const ids = inActiveSpan(() => journey.transform('normalize-order', { a: 1 }, (input) => input));
    recorder.startJourney({ entity: { type: 'order', id: 'ord_2' } }).transform('normalize-order', { a: 2 }, (input) => input);
    await recorder.flush();
    const [inside, outside] = fake.events();
    expect(inside).toMatchObject({ traceId: ids.traceId, spanId: ids.spanId });
    expect(outside).not.toHaveProperty('traceId');
    expect(outside).not.toHaveProperty('spanId');
  });
});
