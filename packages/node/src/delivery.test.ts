import { describe, expect, it } from 'vitest';
import { createRecorder } from './recorder.ts';
import { type Answer, acceptAll, baseOptions, fakeFetch } from './test-fetch.ts';
import type { Diagnostic } from './types.ts';

function recorderWith(answer: Answer, extra: Record<string, unknown> = {}) {
  const fake = fakeFetch(answer);
  const diagnostics: Diagnostic[] = [];
  const recorder = createRecorder({ ...baseOptions(fake.fetch, diagnostics), ...extra });
  const journey = recorder.startJourney({ entity: { type: 'order', id: 'o' } });
  const record = (count: number) => {
    for (let i = 0; i < count; i++) journey.record({ operation: 'received', name: `step-${i}` });
  };
  return { fake, diagnostics, recorder, record };
}

function addsUp(counters: { sent: number; rejected: number; dropped: number; recorded: number }) {
  expect(counters.sent + counters.rejected + counters.dropped).toBe(counters.recorded);
}

describe('batching', () => {
  it('sends 101 events as two requests of at most 100', async () => {
    const { fake, recorder, record } = recorderWith(acceptAll);
    record(101);
    expect(await recorder.flush()).toBe(true);
    expect(fake.batches.map((batch) => batch.length)).toEqual([100, 1]);
    expect(recorder.counters()).toMatchObject({ recorded: 101, sent: 101, requests: 2 });
  });

  it('honours a smaller batch size', async () => {
    const { fake, recorder, record } = recorderWith(acceptAll, { batchSize: 10 });
    record(25);
    await recorder.flush();
    expect(fake.batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
  });
});

describe('the client retry rule (protocol 8.4)', () => {
  it('counts a verdict below 500 as rejected for good and reports it', async () => {
    const { fake, diagnostics, recorder, record } = recorderWith((events) => ({
      status: 202,
      body: { data: { results: events.map((event) => ({ eventId: event.id, status: 'rejected', error: { code: 'invalid_event', message: 'x', httpStatus: 400 } })) } },
    }));
    record(3);
    await recorder.flush();
    expect(fake.batches).toHaveLength(1);
    expect(recorder.counters()).toMatchObject({ recorded: 3, rejected: 3, sent: 0 });
    expect(diagnostics.filter((d) => d.kind === 'event_rejected')).toHaveLength(3);
  });

  it('resends a transient verdict alone until it is accepted', async () => {
    const { fake, recorder, record } = recorderWith((events, request) => ({
      status: 202,
      body: {
        data: {
          results: events.map((event, index) =>
            request === 1 && index === 1
              ? { eventId: event.id, status: 'rejected', error: { code: 'storage_error', message: 'x', httpStatus: 500 } }
              : { eventId: event.id, status: 'accepted', duplicate: false },
          ),
        },
      },
    }));
    record(3);
    await recorder.flush();
    expect(fake.batches.map((batch) => batch.map((event) => event.name))).toEqual([['step-0', 'step-1', 'step-2'], ['step-1']]);
    expect(fake.batches[1]?.[0]?.id).toBe(fake.batches[0]?.[1]?.id);
    expect(recorder.counters()).toMatchObject({ sent: 3, resent: 1 });
  });

  it('gives up on a transient verdict after 10 sends', async () => {
    const { fake, recorder, record } = recorderWith(
      (events) => ({ status: 202, body: { data: { results: events.map((event) => ({ eventId: event.id, status: 'rejected', error: { code: 'query_timeout', message: 'x', httpStatus: 503 } })) } } }),
      { resendDelayMs: 5 },
    );
    record(1);
    await recorder.flush({ timeoutMs: 5_000 });
    expect(fake.batches).toHaveLength(10);
    expect(recorder.counters()).toMatchObject({ recorded: 1, dropped: 1, droppedByCause: { retry_exhausted: 1 } });
  });

  it('does not resend a 2xx without usable verdicts', async () => {
    for (const body of [undefined, { data: {} }, { data: { results: [] } }]) {
      const { fake, recorder, record } = recorderWith(() => ({ status: 202, body }));
      record(2);
      await recorder.flush();
      expect(fake.batches).toHaveLength(1);
      expect(recorder.counters()).toMatchObject({ sent: 2, unconfirmed: 2 });
    }
  });

  it('resends a whole batch after a 5xx, never after a 4xx', async () => {
    const failing = recorderWith((_events, request) => (request === 1 ? { status: 503 } : acceptAll(_events, request)));
    failing.record(2);
    await failing.recorder.flush();
    expect(failing.fake.batches).toHaveLength(2);
    expect(failing.fake.batches[0]?.map((event) => event.id)).toEqual(failing.fake.batches[1]?.map((event) => event.id));
    expect(failing.recorder.counters()).toMatchObject({ sent: 2, requestFailures: 1 });

    const refused = recorderWith(() => ({ status: 401, body: { error: { code: 'unauthorized', message: 'x', requestId: 'r' } } }));
    refused.record(2);
    await refused.recorder.flush();
    expect(refused.fake.batches).toHaveLength(1);
    expect(refused.recorder.counters()).toMatchObject({ dropped: 2, droppedByCause: { request_refused: 2 } });
    expect(refused.diagnostics.map((d) => d.kind)).toContain('transport_error');
  });
});

describe('queue, breaker, flush and shutdown', () => {
  it('drops the oldest beyond the queue size and counts why', async () => {
    const { fake, recorder, record } = recorderWith(acceptAll, { maxQueueSize: 5, batchSize: 100 });
    record(8);
    await recorder.flush();
    expect(fake.events().map((event) => event.name)).toEqual(['step-3', 'step-4', 'step-5', 'step-6', 'step-7']);
    expect(recorder.counters()).toMatchObject({ recorded: 8, sent: 5, dropped: 3, droppedByCause: { queue_full: 3 } });
  });

  it('opens the breaker after repeated failures and stops sending for the cooldown', async () => {
    const { fake, diagnostics, recorder, record } = recorderWith(() => ({ status: 500 }), { breakerThreshold: 2, breakerCooldownMs: 60_000 });
    record(1);
    await recorder.flush({ timeoutMs: 1_500 });
    expect(fake.batches).toHaveLength(2);
    expect(diagnostics.filter((d) => d.kind === 'breaker_opened')).toHaveLength(1);
    expect(recorder.counters().breakerOpens).toBe(1);
    await recorder.shutdown({ timeoutMs: 100 });
    addsUp(recorder.counters());
    expect(recorder.counters().droppedByCause.shutdown).toBe(1);
  });

  it('shutdown returns within its timeout against a server that never answers', async () => {
    const hanging = fakeFetch(() => new Promise(() => {}));
    const recorder = createRecorder({ ...baseOptions(hanging.fetch), requestTimeoutMs: 60_000 });
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'o' } });
    for (let i = 0; i < 150; i++) journey.record({ operation: 'received', name: 'r' });
    const started = Date.now();
    expect(await recorder.shutdown({ timeoutMs: 300 })).toBe(false);
    expect(Date.now() - started).toBeLessThan(600);
    const counters = recorder.counters();
    addsUp(counters);
    expect(counters).toMatchObject({ recorded: 150, dropped: 150 });
    journey.record({ operation: 'received', name: 'after' });
    addsUp(recorder.counters());
  });

  it('flush returns false at its timeout while the server is down', async () => {
    const { recorder, record } = recorderWith(() => ({ status: 502 }));
    record(1);
    const started = Date.now();
    expect(await recorder.flush({ timeoutMs: 200 })).toBe(false);
    expect(Date.now() - started).toBeLessThan(400);
  });
});

describe('the 30-second resend window (protocol 8.4)', () => {
  it('drops a transient refusal once 30 s have passed since its first refusal, even under 10 sends', async () => {
    const { Delivery, emptyCounters } = await import('./delivery.ts');
    let clock = 0;
    const fake = fakeFetch((events) => ({ status: 202, body: { data: { results: events.map(() => ({ status: 'rejected', error: { code: 'storage_error', httpStatus: 500 } })) } } }));
    const counters = emptyCounters();
    const delivery = new Delivery(
      { url: 'http://jtrace.test/v1/events/batch', apiKey: 'k', batchSize: 100, flushIntervalMs: 1_000, maxQueueSize: 10, maxQueueBytes: 64 * 1024 * 1024, requestTimeoutMs: 1_000, breakerThreshold: 5, breakerCooldownMs: 1_000, resendDelayMs: 20_000, fetch: fake.fetch },
      counters,
      () => {},
      () => clock,
    );
    counters.recorded = 1;
    delivery.enqueue({ id: 'evt_1', name: 'n', json: JSON.stringify({ protocolVersion: '0.1', event: { id: 'evt_1' } }) });
    delivery.pump();
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock = 20_000;
    delivery.pump();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.batches).toHaveLength(2);
    expect(counters.droppedByCause.retry_exhausted).toBe(0);
    clock = 30_000;
    delivery.pump();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.batches).toHaveLength(2);
    clock = 60_000;
    delivery.pump();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.batches).toHaveLength(3);
    expect(counters).toMatchObject({ dropped: 1, droppedByCause: { retry_exhausted: 1 } });
    await delivery.shutdown(10);
  });
});
