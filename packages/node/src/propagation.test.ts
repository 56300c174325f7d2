import { describe, expect, it } from 'vitest';
import {
  ENTITY_HEADER,
  JOURNEY_HEADER,
  PARENT_HEADER,
  extractHttpContext,
  extractMessageContext,
  injectHttpHeaders,
  injectMessageAttributes,
  unwrapMessage,
  wrapMessage,
} from './propagation.ts';
import { createRecorder } from './recorder.ts';
import { baseOptions, fakeFetch } from './test-fetch.ts';

function journeyWithStep() {
  const fake = fakeFetch();
  const recorder = createRecorder(baseOptions(fake.fetch));
  const journey = recorder.startJourney({ entity: { type: 'order line', id: 'ord;1/é' }, aliases: { email: 'a@b.c' } });
  const eventId = journey.record({ operation: 'received', name: 'receive' });
  return { fake, recorder, journey, eventId };
}

describe('HTTP propagation', () => {
  it('round-trips through a plain object and through fetch Headers, without aliases', () => {
    const { journey, eventId } = journeyWithStep();
    const plain = injectHttpHeaders({ accept: 'json' } as Record<string, string>, journey);
    expect(plain[JOURNEY_HEADER]).toBe(journey.journeyId);
    expect(plain[PARENT_HEADER]).toBe(eventId);
    expect(JSON.stringify(plain)).not.toContain('a@b.c');
    const headers = injectHttpHeaders(new Headers(), journey);
    for (const source of [plain, headers]) {
      expect(extractHttpContext(source)).toEqual({ journeyId: journey.journeyId, entity: { type: 'order line', id: 'ord;1/é' }, parentEventId: eventId });
    }
  });

  it('reads Node IncomingHttpHeaders (lower case, arrays) and ignores missing or broken context', () => {
    expect(extractHttpContext({ [JOURNEY_HEADER]: ['jrn_1', 'jrn_2'], [ENTITY_HEADER]: 'order;42' })).toEqual({ journeyId: 'jrn_1', entity: { type: 'order', id: '42' } });
    expect(extractHttpContext({ 'X-Jtrace-Journey-Id': 'jrn_1', 'X-JTRACE-ENTITY': 'order;42' })?.journeyId).toBe('jrn_1');
    expect(extractHttpContext({})).toBeNull();
    expect(extractHttpContext(undefined)).toBeNull();
    expect(extractHttpContext({ [JOURNEY_HEADER]: 'jrn_1', [ENTITY_HEADER]: 'no-separator' })).toBeNull();
    expect(extractHttpContext({ [JOURNEY_HEADER]: 'jrn_1', [ENTITY_HEADER]: 'order;%E0%A4%A' })).toBeNull();
  });

  it('continues the journey in the next service with the parent event', async () => {
    const { fake, recorder, journey, eventId } = journeyWithStep();
    const next = recorder.continueJourney({ context: extractHttpContext(injectHttpHeaders({}, journey)) });
    expect(next.journeyId).toBe(journey.journeyId);
    next.record({ operation: 'consumed', name: 'take' });
    await recorder.flush();
    expect(fake.events()[1]).toMatchObject({ journeyId: journey.journeyId, parentEventId: eventId, entity: { type: 'order line', id: 'ord;1/é' } });
    expect(fake.events()[1]).not.toHaveProperty('aliases');
  });

  it('without context: a new journey for a known entity, else one that records nothing', async () => {
    const fake = fakeFetch();
    const recorder = createRecorder(baseOptions(fake.fetch));
    expect(recorder.continueJourney({ context: null, entity: { type: 'order', id: '1' } }).journeyId).toMatch(/^jrn_/);
    const silent = recorder.continueJourney({ context: null });
    expect(silent.transform('t', 2, (n) => n * 2)).toBe(4);
    await recorder.flush();
    expect(fake.events().map((event) => event.name)).toEqual([]);
  });
});

describe('queue propagation', () => {
  it('round-trips through message attributes and a JSON envelope', () => {
    const { journey } = journeyWithStep();
    const attributes = injectMessageAttributes({ kind: 'order' } as Record<string, unknown>, journey);
    expect(extractMessageContext(attributes)?.journeyId).toBe(journey.journeyId);
    const message = JSON.parse(JSON.stringify(wrapMessage({ orderId: 1 }, journey)));
    const opened = unwrapMessage<{ orderId: number }>(message);
    expect(opened.payload).toEqual({ orderId: 1 });
    expect(opened.context?.journeyId).toBe(journey.journeyId);
    expect(unwrapMessage({ orderId: 2 })).toEqual({ context: null, payload: { orderId: 2 } });
  });
});
