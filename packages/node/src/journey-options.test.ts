// Step options beyond the basics: error objects, capture projections, results that are failures,
// failed finishes, a label on a continued journey, and the timing helpers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESULT_FAILURE_TYPE } from './journey.ts';
import { createRecorder } from './recorder.ts';
import { baseOptions, fakeFetch } from './test-fetch.ts';
import { httpResponseMetadata, queueJobMetadata, retryAfterMs } from './timing.ts';

function setup() {
  const fake = fakeFetch();
  const recorder = createRecorder(baseOptions(fake.fetch));
  const journey = recorder.startJourney({ entity: { type: 'order', id: 'ord_1' } });
  return { fake, recorder, journey };
}

describe('record({ error }) with a plain object', () => {
  it('stores { type, message, code } as it stores an Error', async () => {
    const { fake, recorder, journey } = setup();
    journey.record({ operation: 'delivered', name: 'a', error: { type: 'UpstreamError', message: 'timed out', code: 'ETIMEDOUT' } });
    journey.record({ operation: 'delivered', name: 'b', error: Object.assign(new Error('timed out'), { name: 'UpstreamError', code: 'ETIMEDOUT' }) });
    journey.record({ operation: 'delivered', name: 'c', error: { message: 'no type', code: 504 } });
    await recorder.flush();
    const [a, b, c] = fake.events();
    expect(a?.error).toEqual({ type: 'UpstreamError', message: 'timed out', code: 'ETIMEDOUT' });
    expect(a?.error).toEqual(b?.error);
    expect(c?.error).toEqual({ type: 'Error', message: 'no type', code: '504' });
  });

  it('an object with other keys is still data: captured and redacted as JSON text', async () => {
    const { fake, recorder, journey } = setup();
    journey.record({ operation: 'delivered', name: 'a', error: { message: 'refused', password: 'hunter2' } });
    await recorder.flush();
    expect(fake.events()[0]?.error).toMatchObject({ type: 'object' });
    expect(JSON.stringify(fake.events()[0]?.error)).not.toContain('hunter2');
  });

  it('its message is masked like an Error’s', async () => {
    const { fake, recorder, journey } = setup();
    journey.record({ operation: 'failed', name: 'a', error: { type: 'AuthError', message: 'bad header Authorization: Bearer abc.def.ghi' } });
    await recorder.flush();
    expect(String((fake.events()[0]?.error as { message: string }).message)).not.toContain('abc.def.ghi');
  });
});

describe('captureInput / captureOutput', () => {
  it('store a projection while the host keeps its own values', async () => {
    const { fake, recorder, journey } = setup();
    const input = { id: 7, card: '4111 1111 1111 1111' };
    const output = { id: 7, body: 'x'.repeat(10_000) };
    const seen: unknown[] = [];
    const result = journey.transform('charge', input, (value) => (seen.push(value), output), {
      captureInput: (value) => ({ id: value.id }),
      captureOutput: (value) => ({ id: value.id, bodyLength: value.body.length }),
    });
    expect(result).toBe(output);
    expect(seen[0]).toBe(input);
    const awaited = await journey.persist('save', input, async () => output, { captureOutput: (value) => value.id });
    expect(awaited).toBe(output);
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ input: { id: 7 }, output: { id: 7, bodyLength: 10_000 } });
    expect(fake.events()[1]).toMatchObject({ input: { id: 7, card: '4111 1111 1111 1111' }, output: 7 });
  });

  it('a projection that throws is recorded as uncapturable; the host’s call is untouched', async () => {
    const { fake, recorder, journey } = setup();
    const boom = () => {
      throw new Error('projection broke');
    };
    expect(journey.transform('t', 1, (n) => n + 1, { captureInput: boom, captureOutput: boom })).toBe(2);
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ input: '[UNCAPTURABLE]', output: '[UNCAPTURABLE]' });
    expect(fake.events()[0]).not.toHaveProperty('error');
  });
});

describe('isFailure', () => {
  it('records a returned failure with its reason, and returns the result unchanged', async () => {
    const { fake, recorder, journey } = setup();
    const answer = { status: 503, ok: false };
    const judge = (value: { ok: boolean; status: number }) => (value.ok ? false : `HTTP ${value.status}`);
    expect(journey.deliver('post', {}, () => answer, { isFailure: judge })).toBe(answer);
    await journey.deliver('post-async', {}, async () => ({ status: 200, ok: true }), { isFailure: judge });
    journey.deliver('flag', {}, () => 0, { isFailure: () => true });
    journey.deliver('judge-throws', {}, () => 0, {
      isFailure: () => {
        throw new Error('x');
      },
    });
    await recorder.flush();
    const [failed, fine, flagged, thrown] = fake.events();
    expect(failed).toMatchObject({ operation: 'delivered', output: answer, error: { type: RESULT_FAILURE_TYPE, message: 'HTTP 503' } });
    expect(fine).not.toHaveProperty('error');
    expect(flagged?.error).toMatchObject({ type: RESULT_FAILURE_TYPE, message: 'The result is a failure.' });
    expect(thrown).not.toHaveProperty('error');
  });
});

describe('a thenable that is not a promise', () => {
  it('is neither projected nor judged: its value is never read', async () => {
    const { fake, recorder, journey } = setup();
    let judged = 0;
    const lazy = { then: () => undefined };
    expect(journey.persist('query', 1, () => lazy, { captureOutput: () => (judged++, 'x'), isFailure: () => (judged++, true) })).toBe(lazy);
    await recorder.flush();
    expect(judged).toBe(0);
    expect(fake.events()[0]).not.toHaveProperty('error');
    expect(fake.events()[0]).not.toHaveProperty('output');
  });
});

describe('finish', () => {
  it('finish({ status: "failed" }) records a terminal failure; finish() still completes', async () => {
    const { fake, recorder, journey } = setup();
    journey.finish({ status: 'failed', error: { type: 'Rejected', message: 'credit refused' } });
    journey.finish('dead-letter', { status: 'failed' });
    journey.finish();
    journey.finish({ name: 'done', metadata: { rows: 2 } });
    await recorder.flush();
    expect(fake.events().map((event) => [event.operation, event.name, event.error])).toEqual([
      ['failed', 'failed', { type: 'Rejected', message: 'credit refused' }],
      ['failed', 'dead-letter', { message: 'failed' }],
      ['completed', 'complete', undefined],
      ['completed', 'done', undefined],
    ]);
    expect(fake.events()[3]?.metadata).toEqual({ rows: 2 });
  });
});

describe('continueJourney({ label })', () => {
  it('sends the label on the continued journey’s next event only', async () => {
    const { fake, recorder, journey } = setup();
    const next = recorder.continueJourney({ context: journey.context(), label: 'Order 1 (retry)' });
    next.record({ operation: 'consumed', name: 'a' });
    next.record({ operation: 'consumed', name: 'b' });
    recorder.continueJourney({ journeyId: 'jrn_x', entity: { type: 'order', id: '2' }, label: 'Order 2' }).record({ operation: 'consumed', name: 'c' });
    await recorder.flush();
    expect(fake.events().map((event) => event.journeyLabel)).toEqual(['Order 1 (retry)', undefined, 'Order 2']);
  });
});

describe('timing helpers', () => {
  it('queueJobMetadata: first attempt waited since enqueue; a retry since it was ready again', () => {
    const job = { queueName: 'orders', id: 'j1', timestamp: 1_000, processedOn: 1_250, attemptsMade: 0 };
    expect(queueJobMetadata(job)).toEqual({ queue: 'orders', attempt: 1, queueWaitMs: 250, queueWaitBasis: 'initial-enqueue' });
    // A redelivered first attempt did not wait since enqueue: unmeasured, not zero.
    expect(queueJobMetadata(job, { deliveryCount: 2 })).toEqual({ queue: 'orders', attempt: 1, deliveryCount: 2 });
    const retry = { ...job, attemptsMade: 2, processedOn: 5_000 };
    expect(queueJobMetadata(retry)).toEqual({ queue: 'orders', attempt: 3 });
    expect(queueJobMetadata(retry, { readyAgainAt: 4_900 })).toEqual({ queue: 'orders', attempt: 3, queueWaitMs: 100, queueWaitBasis: 'retry-ready' });
    expect(queueJobMetadata(retry, { readyAgainAt: 5_001 })).toEqual({ queue: 'orders', attempt: 3 });
    expect(queueJobMetadata(null)).toEqual({});
    const hostile = Object.defineProperty({}, 'queueName', {
      enumerable: true,
      get() {
        throw new Error('x');
      },
    });
    expect(queueJobMetadata(hostile as never)).toEqual({});
  });

  it('httpResponseMetadata: status, Retry-After in seconds or as a date, the target host only', () => {
    const now = Date.UTC(2026, 8, 21, 12, 0, 0);
    const response = new Response('', { status: 429, headers: { 'retry-after': '120' } });
    expect(httpResponseMetadata(response, { targetUrl: 'https://user:pw@api.example.test:8443/v1/x?token=1' })).toEqual({
      httpStatusCode: 429,
      retryAfterMs: 120_000,
      targetHost: 'api.example.test:8443',
    });
    expect(httpResponseMetadata({ status: 503, headers: { 'Retry-After': 'Mon, 21 Sep 2026 12:00:02 GMT' } }, { now })).toEqual({ httpStatusCode: 503, retryAfterMs: 2_000 });
    expect(httpResponseMetadata({ status: 200 }, { targetUrl: 'https://api.example.test/' })).toEqual({ httpStatusCode: 200, targetHost: 'api.example.test' });
    expect(httpResponseMetadata({ status: 99 })).toEqual({});
  });

  it('Retry-After values that cannot be read are left off, never guessed', () => {
    const now = Date.UTC(2026, 8, 21, 12, 0, 0);
    for (const value of ['-1', '1.5', 'soon', 'Tue, 21 Sep 2026 12:00:02 GMT', 'Mon, 31 Feb 2026 12:00:02 GMT', '99999999999']) {
      expect(retryAfterMs(value, now)).toBeUndefined();
    }
    expect(retryAfterMs('Mon, 21 Sep 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('its metadata goes on a step as given', async () => {
    const { fake, recorder, journey } = setup();
    const metadata = httpResponseMetadata({ status: 429, headers: { 'retry-after': '2' } });
    journey.deliver('call', {}, () => 1, { metadata });
    await recorder.flush();
    expect(fake.events()[0]?.metadata).toEqual({ httpStatusCode: 429, retryAfterMs: 2_000 });
  });
});

describe('timing helpers with hostile input', () => {
  it('retryAfterMs never throws and answers a whole number of ms within 0 … 2^31 - 1, or nothing', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[0-9]{1,12}$/), fc.date({ noInvalidDate: true }).map((d) => d.toUTCString())), fc.integer({ min: 0, max: 4e12 }), (text, now) => {
        const ms = retryAfterMs(text, now);
        if (ms !== undefined) expect(Number.isSafeInteger(ms) && ms >= 0 && ms <= 2_147_483_647).toBe(true);
      }),
    );
  });

  it('the helpers never throw on anything', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (a, b) => {
        expect(typeof queueJobMetadata(a as never, b as never)).toBe('object');
        expect(typeof httpResponseMetadata(a as never, b as never)).toBe('object');
      }),
    );
  });
});
