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

describe('hostile context', () => {
  const recorder = () => createRecorder(baseOptions(fakeFetch().fetch));
  const continued = (journeyId: string, parentEventId?: string) =>
    recorder().continueJourney({ context: { journeyId, entity: { type: 'order', id: 'o-1' }, ...(parentEventId ? { parentEventId } : {}) } });

  it('ids with CR LF or characters beyond Latin-1 travel encoded through fetch Headers and come back whole', () => {
    for (const journeyId of ['jrn_a\r\nSet-Cookie: x=1', 'jrn_☃', 'jrn_50%off, then more']) {
      const journey = continued(journeyId, 'evt_\r\nx');
      const headers = new Headers();
      expect(() => injectHttpHeaders(headers, journey)).not.toThrow();
      expect(headers.get(JOURNEY_HEADER)).not.toMatch(/[\r\n]/);
      expect(extractHttpContext(headers)).toMatchObject({ journeyId, parentEventId: 'evt_\r\nx', entity: { type: 'order', id: 'o-1' } });
    }
  });

  it('frozen targets and Proxies are left as they are, never thrown at', () => {
    const journey = continued('jrn_1');
    const frozen = Object.freeze({});
    expect(injectHttpHeaders(frozen, journey)).toBe(frozen);
    expect(injectMessageAttributes(Object.freeze({}), journey)).toEqual({});
    const hostile = new Proxy(
      {},
      {
        set() {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(() => injectHttpHeaders(hostile, journey)).not.toThrow();
    expect(unwrapMessage(hostile)).toEqual({ context: null, payload: hostile });
  });

  it('refuses what the server would refuse on every event: over-long ids, an over-long entity, an empty type, a NUL in the journey id', () => {
    const entity = (type: string, id: string) => `${encodeURIComponent(type)};${encodeURIComponent(id)}`;
    const cases: Array<Record<string, string>> = [
      { [JOURNEY_HEADER]: 'j'.repeat(129), [ENTITY_HEADER]: entity('order', 'o') },
      { [JOURNEY_HEADER]: 'jrn_%00', [ENTITY_HEADER]: entity('order', 'o') },
      { [JOURNEY_HEADER]: 'jrn_%ZZ', [ENTITY_HEADER]: entity('order', 'o') },
      { [JOURNEY_HEADER]: 'jrn_1', [ENTITY_HEADER]: entity('order', 'x'.repeat(513)) },
      { [JOURNEY_HEADER]: 'jrn_1', [ENTITY_HEADER]: entity('', 'o') },
      { [JOURNEY_HEADER]: 'jrn_1', [ENTITY_HEADER]: entity('t'.repeat(129), 'o') },
    ];
    for (const headers of cases) expect(extractHttpContext(headers)).toBeNull();
    // At the limits it is taken; an unusable parent id is left off, the journey still continues.
    expect(extractHttpContext({ [JOURNEY_HEADER]: 'j'.repeat(128), [ENTITY_HEADER]: entity('order', 'x'.repeat(512)), [PARENT_HEADER]: 'p'.repeat(129) })).toEqual({
      journeyId: 'j'.repeat(128),
      entity: { type: 'order', id: 'x'.repeat(512) },
    });
  });

  it('a header sent twice gives its first value, not the two joined', () => {
    const headers = new Headers();
    headers.append(JOURNEY_HEADER, 'jrn_a');
    headers.append(JOURNEY_HEADER, 'jrn_b');
    headers.append(ENTITY_HEADER, 'order;o-1');
    expect(extractHttpContext(headers)?.journeyId).toBe('jrn_a');
  });
});
