import { describe, expect, it } from 'vitest';
import { createRecorder } from './recorder.ts';
import { baseOptions, fakeFetch } from './test-fetch.ts';
import type { Diagnostic } from './types.ts';

function setup() {
  const fake = fakeFetch();
  const diagnostics: Diagnostic[] = [];
  const recorder = createRecorder(baseOptions(fake.fetch, diagnostics));
  const journey = recorder.startJourney({ entity: { type: 'order', id: 'ord_1' }, label: 'Order 1' });
  return { fake, diagnostics, recorder, journey };
}

describe('wrappers', () => {
  it('keep a synchronous function synchronous and return its own value', async () => {
    const { fake, recorder, journey } = setup();
    const output = { total: 3 };
    const result = journey.transform('normalize-order', { a: 1 }, (input) => (input.a === 1 ? output : null));
    expect(result).toBe(output);
    await recorder.flush();
    const [event] = fake.events();
    expect(event).toMatchObject({ operation: 'transformed', name: 'normalize-order', input: { a: 1 }, output: { total: 3 }, journeyLabel: 'Order 1' });
    expect(event?.durationMs).toBeTypeOf('number');
  });

  it('rethrow the exact error object and record it', async () => {
    const { fake, recorder, journey } = setup();
    const error = new RangeError('out of range');
    let caught: unknown;
    try {
      journey.validate('check-order', { a: 1 }, () => {
        throw error;
      });
    } catch (thrown) {
      caught = thrown;
    }
    expect(caught).toBe(error);
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ operation: 'validated', error: { type: 'RangeError', message: 'out of range' } });
    expect(fake.events()[0]).not.toHaveProperty('output');
  });

  it('return the same promise and record when it settles', async () => {
    const { fake, recorder, journey } = setup();
    const promise = Promise.resolve('done');
    expect(journey.persist('save-order', { a: 1 }, () => promise)).toBe(promise);
    const failing = Promise.reject(new Error('gone'));
    const returned = journey.deliver('send-order', { a: 1 }, () => failing);
    expect(returned).toBe(failing);
    await expect(returned).rejects.toThrow('gone');
    await recorder.flush();
    expect(fake.events().map((event) => [event.operation, event.output, (event.error as { message?: string } | undefined)?.message])).toEqual([
      ['persisted', 'done', undefined],
      ['delivered', undefined, 'gone'],
    ]);
  });

  it('record retried with the attempt above one', async () => {
    const { fake, recorder, journey } = setup();
    journey.deliver('deliver-to-target', { id: 1 }, () => 'ok', { attempt: 1 });
    journey.deliver('deliver-to-target', { id: 1 }, () => 'ok', { attempt: 2 });
    await recorder.flush();
    expect(fake.events().map((event) => [event.operation, event.metadata])).toEqual([
      ['delivered', { attempt: 1 }],
      ['retried', { attempt: 2 }],
    ]);
  });

  it('never throw into the host, whatever the input or callback does', async () => {
    const fake = fakeFetch();
    const recorder = createRecorder({ ...baseOptions(fake.fetch), onDiagnostic: () => { throw new Error('callback broke'); } });
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'x' } });
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('no keys'); } });
    expect(journey.receive('take', hostile, () => 7)).toBe(7);
    expect(() => journey.record({ operation: 'received', name: 'n', input: hostile, metadata: hostile as Record<string, unknown> })).not.toThrow();
    expect(() => journey.fail('dead-letter', undefined)).not.toThrow();
    await recorder.shutdown({ timeoutMs: 1_000 });
    const counters = recorder.counters();
    expect(counters.sent + counters.rejected + counters.dropped).toBe(counters.recorded);
  });
});

describe('journey steps', () => {
  it('identify, fail and finish send their operations; aliases never repeat', async () => {
    const { fake, recorder, journey } = setup();
    journey.identify({ crm: 'C-1', email: 'a@b.c' }, { displayable: ['crm'] });
    journey.fail('move-to-dead-letter', new Error('password=hunter2 rejected'));
    journey.finish();
    await recorder.flush();
    const [identified, failed, completed] = fake.events();
    expect(identified).toMatchObject({ operation: 'identified', name: 'identify', aliases: { crm: 'C-1', email: 'a@b.c' }, displayableAliases: ['crm'] });
    expect(failed).toMatchObject({ operation: 'failed', name: 'move-to-dead-letter', error: { type: 'Error', message: 'password=[REDACTED] rejected' } });
    expect(failed?.error).not.toHaveProperty('stack');
    expect(completed).toMatchObject({ operation: 'completed', name: 'complete' });
    expect(completed).not.toHaveProperty('aliases');
    expect(failed?.parentEventId).toBe(identified?.id);
  });

  it('starts with aliases given at the start on the first event only', async () => {
    const fake = fakeFetch();
    const recorder = createRecorder(baseOptions(fake.fetch));
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'o' }, aliases: { crm: 'C-9' }, displayableAliases: ['crm'] });
    journey.record({ operation: 'received', name: 'a' });
    journey.record({ operation: 'validated', name: 'b' });
    await recorder.flush();
    expect(fake.events().map((event) => event.aliases)).toEqual([{ crm: 'C-9' }, undefined]);
  });

  it('derives journey ids from the entity when a secret is set', () => {
    const fake = fakeFetch();
    const recorder = createRecorder({ ...baseOptions(fake.fetch), journeyIdSecret: 'journey id test vector secret one, not a real key' });
    const journey = recorder.startJourney({ entity: { type: 'job_posting', id: 'greenhouse:4567' } });
    expect(journey.journeyId).toBe('jrn_03229a6b36d35d0f9ba7e23793d64693');
  });

  it('reads trace and span ids from an active OpenTelemetry span', async () => {
    const fake = fakeFetch();
    const span = { spanContext: () => ({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' }) };
    const recorder = createRecorder({ ...baseOptions(fake.fetch), openTelemetry: { trace: { getActiveSpan: () => span } } });
    recorder.startJourney({ entity: { type: 'order', id: 'o' } }).record({ operation: 'received', name: 'a' });
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' });
  });
});

describe('configuration', () => {
  it('reports a bad configuration and records nothing, without throwing', async () => {
    const diagnostics: Diagnostic[] = [];
    const recorder = createRecorder({ endpoint: 'not a url', apiKey: '', serviceName: 's', environment: 'e', onDiagnostic: (d) => diagnostics.push(d) });
    expect(diagnostics.map((d) => d.kind)).toEqual(['configuration_error', 'configuration_error']);
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'o' } });
    expect(journey.transform('t', 1, (n) => n + 1)).toBe(2);
    expect(await recorder.shutdown()).toBe(true);
    expect(recorder.counters()).toMatchObject({ recorded: 1, dropped: 1, droppedByCause: { disabled: 1 } });
  });

  it('reports an out-of-range option and a malformed rule, and uses the default', () => {
    const diagnostics: Diagnostic[] = [];
    createRecorder({ ...baseOptions(fakeFetch().fetch, diagnostics), batchSize: 500, redactionPaths: ['a..b'], journeyIdSecret: 'short' });
    expect(diagnostics.map((d) => d.message)).toEqual([
      expect.stringContaining('batchSize'),
      expect.stringContaining('a..b'),
      expect.stringContaining('journeyIdSecret'),
    ]);
  });
});

describe('across', () => {
  it('runs the host function once and gives each journey its own event, parent link and label', async () => {
    const { fake, recorder, journey } = setup();
    journey.record({ operation: 'received', name: 'first' });
    const other = recorder.startJourney({ entity: { type: 'order', id: 'ord_2' } });
    let calls = 0;
    const result = recorder.across([journey, other, journey]).persist('write-digest', { lines: 3 }, () => {
      calls += 1;
      return 'digest.md';
    });
    expect(result).toBe('digest.md');
    expect(calls).toBe(1);
    await recorder.flush();
    const [first, mine, theirs] = fake.events();
    expect(fake.events()).toHaveLength(3);
    expect(mine).toMatchObject({ operation: 'persisted', journeyId: journey.journeyId, parentEventId: first?.id, entity: { id: 'ord_1' }, output: 'digest.md' });
    expect(theirs).toMatchObject({ operation: 'persisted', journeyId: other.journeyId, entity: { id: 'ord_2' }, input: { lines: 3 } });
    expect(theirs).not.toHaveProperty('parentEventId');
    expect(new Set([first?.id, mine?.id, theirs?.id]).size).toBe(3);
  });

  it('records a promise once it settles, on every journey, and rethrows the host error as it is', async () => {
    const { fake, recorder, journey } = setup();
    const other = recorder.startJourney({ entity: { type: 'order', id: 'ord_2' } });
    const group = recorder.across([journey, other]);
    await expect(group.deliver('send', 1, async (n) => n + 1)).resolves.toBe(2);
    const error = new Error('refused');
    expect(() => group.validate('check', 1, () => {
      throw error;
    })).toThrow(error);
    await recorder.flush();
    expect(fake.events().map((event) => [event.operation, event.journeyId])).toEqual([
      ['delivered', journey.journeyId], ['delivered', other.journeyId],
      ['validated', journey.journeyId], ['validated', other.journeyId],
    ]);
    expect(fake.events()[3]).toMatchObject({ error: { message: 'refused' } });
    expect(fake.events()[3]).not.toHaveProperty('output');
  });

  it('leaves out what is not a journey and never throws', async () => {
    const { fake, recorder, journey } = setup();
    const group = recorder.across([journey, null, 'x'] as never);
    expect(group.journeys).toEqual([journey]);
    expect(recorder.across(null as never).record({ operation: 'received', name: 'x' })).toEqual([]);
    await recorder.flush();
    expect(fake.events()).toHaveLength(0);
  });
});
