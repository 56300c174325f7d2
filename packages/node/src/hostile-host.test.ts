// What a host may hand the recorder by mistake or by design: none of it may throw into the host,
// change what the host gets back, run the host's work twice, hang delivery or leak a secret.
import { describe, expect, it } from 'vitest';
import { PAYLOAD_TOO_LARGE } from './capture.ts';
import { createRecorder } from './recorder.ts';
import { baseOptions, fakeFetch } from './test-fetch.ts';
import type { Diagnostic, StepOptions } from './types.ts';

function setup(options: Record<string, unknown> = {}) {
  const fake = fakeFetch();
  const diagnostics: Diagnostic[] = [];
  const recorder = createRecorder({ ...baseOptions(fake.fetch, diagnostics), ...options });
  const journey = recorder.startJourney({ entity: { type: 'order', id: 'ord_1' } });
  return { fake, diagnostics, recorder, journey };
}

describe('values shared by many parents', () => {
  it('a graph that JSON would write 2^30 times is cut at the value budget, quickly, and the step is still recorded', async () => {
    const { fake, recorder, journey } = setup();
    let node: Record<string, unknown> = { leaf: 'x' };
    for (let level = 0; level < 30; level++) node = { left: node, right: node };
    // Without the budget this call runs out of memory.
    const result = journey.transform('dag', node, (input) => input.left);
    expect(result).toBe(node.left);
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ input: PAYLOAD_TOO_LARGE, output: PAYLOAD_TOO_LARGE });
  });

  it('a small shared object is copied at each place, as JSON writes it', async () => {
    const { fake, recorder, journey } = setup();
    const shared = { sku: 'A-1' };
    journey.transform('shared', { first: shared, second: shared }, () => [shared, shared]);
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ input: { first: shared, second: shared }, output: [shared, shared] });
  });
});

describe('what the host function returns', () => {
  it('a thenable that is not a Promise is returned untouched and its then is never called', async () => {
    const { fake, recorder, journey } = setup();
    let runs = 0;
    const query = {
      then(resolve: (rows: string[]) => void) {
        runs += 1;
        resolve(['row']);
      },
    };
    const returned = journey.persist('find', { id: 1 }, () => query);
    expect(returned).toBe(query);
    expect(runs).toBe(0);
    expect(await returned).toEqual(['row']);
    expect(runs).toBe(1);
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ operation: 'persisted', input: { id: 1 } });
    expect(fake.events()[0]).not.toHaveProperty('output');
  });

  it('a Proxy whose traps throw, or a throwing then getter, is returned as it is and recorded as unreadable', async () => {
    const { recorder, journey } = setup();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    const thenGetter = Object.defineProperty({}, 'then', {
      get() {
        throw new Error('then getter');
      },
    });
    expect(journey.transform('proxy', 1, () => hostile)).toBe(hostile);
    expect(journey.transform('then-getter', 1, () => thenGetter)).toBe(thenGetter);
    await recorder.flush();
    expect(recorder.counters().recorded).toBe(2);
  });
});

describe('options the host gets wrong', () => {
  it('null options and throwing option getters never throw from fail, finish, identify or a wrapper', async () => {
    const { recorder, journey } = setup();
    const throwing = Object.defineProperty({}, 'metadata', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    }) as StepOptions;
    expect(() => journey.fail('x', new Error('e'), null)).not.toThrow();
    expect(() => journey.finish('done', null)).not.toThrow();
    expect(() => journey.identify({ crm: 'C-1' }, null)).not.toThrow();
    expect(() => journey.finish('done', throwing)).not.toThrow();
    expect(journey.transform('t', 1, (n) => n + 1, null)).toBe(2);
    await recorder.flush();
    expect(recorder.counters().recorded).toBeGreaterThanOrEqual(4);
  });

  it('a label or a displayable list of the wrong type is left off, not the whole event', async () => {
    const { fake, recorder, journey } = setup();
    journey.label(42 as unknown as string);
    journey.record({ operation: 'identified', name: 'identify', aliases: { email: 'a@b.c' }, displayableAliases: 'email' as unknown as string[] });
    await recorder.flush();
    expect(fake.events()).toHaveLength(1);
    expect(fake.events()[0]).not.toHaveProperty('journeyLabel');
    expect(fake.events()[0]).not.toHaveProperty('displayableAliases');
    expect(fake.events()[0]).toMatchObject({ aliases: { email: 'a@b.c' } });
  });

  it('flush and shutdown with a timeout that is not a number use the default instead of never ending', async () => {
    const hang = (() => new Promise<Response>(() => {})) as typeof fetch;
    const recorder = createRecorder({ ...baseOptions(hang), requestTimeoutMs: 50 });
    recorder.startJourney({ entity: { type: 'order', id: 'o' } }).finish();
    const outcome = await Promise.race([
      Promise.all([recorder.flush({ timeoutMs: Number.NaN }), recorder.shutdown({ timeoutMs: '5s' as unknown as number })]).then(() => 'settled'),
      new Promise((resolve) => setTimeout(() => resolve('still pending'), 25_000)),
    ]);
    expect(outcome).toBe('settled');
  }, 30_000);
});

describe('errors the host throws', () => {
  it('an Error whose getters throw is still recorded, with what can be read', async () => {
    const { fake, recorder, journey } = setup();
    const error = new Error('x');
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('message getter');
      },
    });
    let caught: unknown;
    try {
      journey.deliver('send', 1, () => {
        throw error;
      });
    } catch (thrown) {
      caught = thrown;
    }
    expect(caught).toBe(error);
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ operation: 'delivered', error: { type: 'Error', message: '[UNCAPTURABLE]' } });
  });

  it('a thrown plain object is redacted like a payload before it becomes the message', async () => {
    const { fake, recorder, journey } = setup({ redactionPaths: ['customer.ssn'] });
    const thrown = { customer: { ssn: '123-45-6789', name: 'Ada' }, password: 'hunter22', headers: [['Authorization', 'Token live_abcDEF123456']] };
    expect(() =>
      journey.deliver('send', 1, () => {
        throw thrown;
      }),
    ).toThrow();
    await recorder.flush();
    const message = String((fake.events()[0]?.error as { message: string }).message);
    expect(message).toContain('Ada');
    for (const secret of ['123-45-6789', 'hunter22', 'live_abcDEF123456']) expect(message).not.toContain(secret);
  });
});

describe('delivery with a fetch that ignores its abort signal', () => {
  it('counts the request as failed after requestTimeoutMs and goes on sending', async () => {
    let calls = 0;
    const stubborn = (async () => {
      calls += 1;
      if (calls === 1) return new Promise<Response>(() => {});
      return new Response(JSON.stringify({ data: { results: [{ status: 'accepted' }] } }), { status: 202 });
    }) as typeof fetch;
    const diagnostics: Diagnostic[] = [];
    const recorder = createRecorder({ ...baseOptions(stubborn, diagnostics), requestTimeoutMs: 100, flushIntervalMs: 10 });
    recorder.startJourney({ entity: { type: 'order', id: 'o' } }).finish();
    expect(await recorder.flush({ timeoutMs: 20_000 })).toBe(true);
    expect(recorder.counters()).toMatchObject({ sent: 1, requestFailures: 1 });
    expect(diagnostics.some((d) => d.kind === 'transport_error' && d.message.includes('timed out'))).toBe(true);
  }, 30_000);
});

describe('recorder options of the wrong shape', () => {
  const diagnosticsFor = (options: Record<string, unknown>) => {
    const fake = fakeFetch();
    const diagnostics: Diagnostic[] = [];
    const recorder = createRecorder({ ...baseOptions(fake.fetch, diagnostics), ...options });
    return { fake, diagnostics, recorder, problems: () => diagnostics.filter((d) => d.kind === 'configuration_error').map((d) => d.message) };
  };

  it('one redaction rule given as a string is used, and said so; rules that are not strings are reported', async () => {
    const { fake, recorder, problems } = diagnosticsFor({ redactionPaths: 'customer.ssn' });
    recorder.startJourney({ entity: { type: 'order', id: 'o' } }).record({ operation: 'received', name: 'r', input: { customer: { ssn: '123-45-6789' } } });
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ input: { customer: { ssn: '[REDACTED]' } } });
    expect(problems().join(' ')).toContain('redactionPaths must be an array');
    expect(diagnosticsFor({ redactionPaths: [42, 'a.b'] }).problems().join(' ')).toContain('not a string');
  });

  it('deployment fields are fitted to their lengths; a deployment that is not an object is not sent, and said so', async () => {
    const { fake, recorder } = diagnosticsFor({ deployment: { version: 'v'.repeat(300), gitCommit: 7, extra: 'x' } });
    recorder.startJourney({ entity: { type: 'order', id: 'o' } }).finish();
    await recorder.flush();
    const deployment = fake.events()[0]?.deployment as Record<string, string>;
    expect([...deployment.version!].length).toBe(128);
    expect(deployment).not.toHaveProperty('gitCommit');
    const wrong = diagnosticsFor({ deployment: 'v1.2' });
    wrong.recorder.startJourney({ entity: { type: 'order', id: 'o' } }).finish();
    await wrong.recorder.flush();
    expect(wrong.fake.events()[0]).not.toHaveProperty('deployment');
    expect(wrong.problems().join(' ')).toContain('deployment must be an object');
  });

  it('an openTelemetry option that is not the API is reported and events are still captured', async () => {
    const { fake, recorder, problems } = diagnosticsFor({ openTelemetry: {} });
    recorder.startJourney({ entity: { type: 'order', id: 'o' } }).finish();
    await recorder.flush();
    expect(fake.events()).toHaveLength(1);
    expect(recorder.counters().droppedByCause.capture_failed ?? 0).toBe(0);
    expect(problems().join(' ')).toContain('openTelemetry must be');
  });
});

describe('text the server could not store', () => {
  it('U+0000 is removed and unpaired surrogates become U+FFFD where the server stores text in the clear; both stay where it encrypts', async () => {
    const { fake, recorder } = setup();
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'o-\u0000-\ud800' } });
    journey.record({
      operation: 'received',
      name: 'step\u0000\udc00',
      input: { ['k\u0000ey']: 'v\u0000al\ud800ue', list: ['\udfff'] },
      aliases: { ['crm\ud800']: 'C-\u0000-1' },
      error: new Error('bad \u0000 \ud800 message'),
    });
    await recorder.flush();
    const event = fake.events()[0]!;
    expect(event.name).toBe('step\ufffd');
    expect(event.input).toEqual({ key: 'val\ufffdue', list: ['\ufffd'] });
    expect(event.entity).toEqual({ type: 'order', id: 'o-\u0000-\ufffd' });
    expect(event.aliases).toEqual({ ['crm\ufffd']: 'C-\u0000-1' });
    expect((event.error as { message: string }).message).toBe('bad  \ufffd message');
  });

  it('a name, entity type, error text, label or alias type of only U+0000 falls back or is left off rather than sent empty', async () => {
    const { fake, recorder } = setup();
    const journey = recorder.startJourney({ entity: { type: '\u0000', id: 'o-1' }, label: ' \u0000 ' });
    journey.record({
      operation: 'received',
      name: '\u0000\u0000',
      error: Object.assign(new Error('\u0000'), { name: '\u0000' }),
      aliases: { '\u0000': 'x', crm: 'C-1' },
      displayableAliases: ['\u0000', 'crm'],
    });
    await recorder.flush();
    const event = fake.events()[0]!;
    expect(event.name).toBe('received');
    expect(event.entity).toEqual({ type: 'unknown', id: 'o-1' });
    expect(event.error).toMatchObject({ type: 'Error', message: 'Error' });
    expect(event).not.toHaveProperty('journeyLabel');
    expect(event.aliases).toEqual({ crm: 'C-1' });
    expect(event.displayableAliases).toEqual(['crm']);
  });
});

describe('the queue against a dead server', () => {
  it('holds at most maxQueueBytes of events, dropping the oldest, and the counters add up', async () => {
    const dead = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    const recorder = createRecorder({ ...baseOptions(dead), maxQueueBytes: 1024 * 1024, flushIntervalMs: 3_600_000, breakerThreshold: 1 });
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'o' } });
    const big = 'x'.repeat(60_000);
    for (let i = 0; i < 50; i++) journey.record({ operation: 'received', name: 'big', input: { big } });
    const counters = recorder.counters();
    // Over 60,000 characters each: at most 17 fit in 1 MiB, the oldest of the others were dropped.
    expect(counters.queued).toBeGreaterThan(0);
    expect(counters.queued).toBeLessThanOrEqual(17);
    expect(counters.droppedByCause.queue_full).toBe(50 - counters.queued);
    await recorder.shutdown({ timeoutMs: 100 });
    const after = recorder.counters();
    expect(after.sent + after.rejected + after.dropped).toBe(after.recorded);
  });
});

describe('the queue while a batch is being sent', () => {
  it('counts the batch under way against maxQueueBytes, so what the recorder holds stays within it', async () => {
    let release: () => void = () => {};
    const hanging = ((_url: unknown, init: { signal?: AbortSignal }) =>
      new Promise<Response>((_resolve, reject) => {
        release = () => reject(new TypeError('fetch failed'));
        init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      })) as unknown as typeof fetch;
    const recorder = createRecorder({ ...baseOptions(hanging), maxQueueBytes: 1024 * 1024, batchSize: 10, flushIntervalMs: 3_600_000 });
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'o' } });
    const big = 'x'.repeat(60_000);
    for (let i = 0; i < 10; i++) journey.record({ operation: 'received', name: 'big', input: { big } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(recorder.counters().inFlight).toBe(10);
    for (let i = 0; i < 20; i++) journey.record({ operation: 'received', name: 'big', input: { big } });
    const counters = recorder.counters();
    // Over 60,000 characters each: 10 are being sent, so at most 7 more fit in 1 MiB.
    expect(counters.queued).toBeGreaterThan(0);
    expect(counters.queued + counters.inFlight).toBeLessThanOrEqual(17);
    expect(counters.droppedByCause.queue_full).toBe(20 - counters.queued);
    release();
    await recorder.shutdown({ timeoutMs: 100 });
    const after = recorder.counters();
    expect(after.sent + after.rejected + after.dropped).toBe(after.recorded);
  });
});
