// Mixed fleets: carriers recorded from services on the peer protocol (packages/node/test/peer-carriers.json)
// are read; injection stays jtrace's own unless the peer's carriers are asked for.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENTITY_HEADER, JOURNEY_HEADER, extractHttpContext, extractMessageContext, injectHttpHeaders, injectMessageAttributes, unwrapMessage } from './propagation.ts';
import { createRecorder } from './recorder.ts';
import { baseOptions, fakeFetch } from './test-fetch.ts';

interface Carriers {
  http: Array<{ name: string; headers: Record<string, unknown>; expected: unknown }>;
  messageAttributes: Array<{ name: string; attributes: Record<string, unknown>; expected: unknown }>;
  envelopes: Array<{ name: string; message: unknown; expected: unknown; payload: unknown }>;
}

const carriers = JSON.parse(readFileSync(new URL('../test/peer-carriers.json', import.meta.url), 'utf8')) as Carriers;

describe('extracting the peer protocol’s carriers (recorded sets)', () => {
  it.each(carriers.http.map((c) => [c.name, c] as const))('HTTP: %s', (_name, c) => {
    expect(extractHttpContext(c.headers)).toEqual(c.expected);
    // The same set through fetch Headers reads alike.
    const headers = new Headers();
    for (const [key, value] of Object.entries(c.headers)) for (const item of Array.isArray(value) ? value : [value]) headers.append(key, String(item));
    expect(extractHttpContext(headers)).toEqual(c.expected);
  });

  it('the over-long case is over jtrace’s 128 characters', () => {
    const long = carriers.http.find((c) => c.name.includes('128'));
    expect(String(long?.headers['x-wayscribe-journey-id']).length).toBeGreaterThan(128);
  });

  it.each(carriers.messageAttributes.map((c) => [c.name, c] as const))('message attributes: %s', (_name, c) => {
    expect(extractMessageContext(c.attributes)).toEqual(c.expected);
  });

  it.each(carriers.envelopes.map((c) => [c.name, c] as const))('JSON envelope: %s', (_name, c) => {
    expect(unwrapMessage(c.message)).toEqual({ context: c.expected, payload: c.payload });
  });
});

function setUp(options: { peerPropagation?: boolean } = {}) {
  const fake = fakeFetch();
  const recorder = createRecorder({ ...baseOptions(fake.fetch), ...options });
  return { fake, recorder };
}

describe('joining a journey a peer service started', () => {
  it('continues the peer’s journey id with the peer’s entity', async () => {
    const { fake, recorder } = setUp();
    const journey = recorder.continueJourney({ context: extractHttpContext(carriers.http[0]?.headers) });
    journey.record({ operation: 'consumed', name: 'take' });
    await recorder.flush();
    expect(fake.events()[0]).toMatchObject({ journeyId: 'jrn_6f1c2a0e9b7d4c1f8a3e5d2b7c9f0a11', entity: { type: 'order', id: 'ORD-1001' } });
    expect(fake.events()[0]).not.toHaveProperty('parentEventId');
  });

  it('without an entity from the peer, records with the host’s entity, else "unknown"', async () => {
    const { fake, recorder } = setUp();
    const context = extractHttpContext({ 'x-wayscribe-journey-id': 'jrn_peer' });
    recorder.continueJourney({ context, entity: { type: 'order', id: 'O-1' } }).record({ operation: 'consumed', name: 'a' });
    recorder.continueJourney({ context }).record({ operation: 'consumed', name: 'b' });
    // A context's own entity wins over the host's.
    recorder.continueJourney({ context: extractHttpContext(carriers.http[0]?.headers), entity: { type: 'x', id: 'y' } }).record({ operation: 'consumed', name: 'c' });
    await recorder.flush();
    expect(fake.events().map((event) => [event.journeyId, event.entity])).toEqual([
      ['jrn_peer', { type: 'order', id: 'O-1' }],
      ['jrn_peer', { type: 'unknown', id: 'unknown' }],
      ['jrn_6f1c2a0e9b7d4c1f8a3e5d2b7c9f0a11', { type: 'order', id: 'ORD-1001' }],
    ]);
  });
});

describe('injecting for the other direction', () => {
  it('writes jtrace’s own headers only, unless asked', () => {
    const { recorder } = setUp();
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'ORD-1' }, journeyId: 'jrn_abc' });
    expect(Object.keys(injectHttpHeaders({}, journey)).sort()).toEqual([ENTITY_HEADER, JOURNEY_HEADER]);
    expect(injectHttpHeaders({}, journey, { peer: true })).toEqual({
      [JOURNEY_HEADER]: 'jrn_abc',
      [ENTITY_HEADER]: 'order;ORD-1',
      'x-wayscribe-journey-id': 'jrn_abc',
      'x-wayscribe-entity-type': 'order',
      'x-wayscribe-entity-id': 'ORD-1',
    });
  });

  it('the recorder option turns it on for every journey; a call may turn it off', () => {
    const { recorder } = setUp({ peerPropagation: true });
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'ORD-1' }, journeyId: 'jrn_abc' });
    const headers = injectHttpHeaders(new Headers(), journey);
    expect(headers.get('x-wayscribe-journey-id')).toBe('jrn_abc');
    expect(injectHttpHeaders({}, journey, { peer: false })).not.toHaveProperty('x-wayscribe-journey-id');
    // What the peer writes, the peer reads: jtrace's headers removed, the peer's still give the journey.
    const peerOnly = Object.fromEntries([...headers].filter(([name]) => name.startsWith('x-wayscribe-')));
    expect(extractHttpContext(peerOnly)).toEqual({ journeyId: 'jrn_abc', entity: { type: 'order', id: 'ORD-1' } });
  });

  it('leaves out peer values the peer would refuse: an entity id outside its characters, a journey id without jrn_', () => {
    const { recorder } = setUp({ peerPropagation: true });
    const slash = recorder.startJourney({ entity: { type: 'order', id: 'ORD/1' }, journeyId: 'jrn_abc' });
    expect(injectHttpHeaders({}, slash)).toMatchObject({ 'x-wayscribe-journey-id': 'jrn_abc' });
    expect(injectHttpHeaders({}, slash)).not.toHaveProperty('x-wayscribe-entity-id');
    expect(injectHttpHeaders({}, slash)).not.toHaveProperty('x-wayscribe-entity-type');
    const odd = recorder.startJourney({ entity: { type: 'order', id: '1' }, journeyId: 'order-1' });
    expect(Object.keys(injectHttpHeaders({}, odd)).some((name) => name.startsWith('x-wayscribe'))).toBe(false);
  });

  it('SQS-shaped attributes: written as { DataType, StringValue } and read back, with the peer’s names on request', () => {
    const { recorder } = setUp();
    const journey = recorder.startJourney({ entity: { type: 'order', id: 'ORD-1' }, journeyId: 'jrn_abc' });
    journey.record({ operation: 'published', name: 'send' });
    const attributes = injectMessageAttributes({ tenant: { DataType: 'String', StringValue: 'eu' } } as Record<string, unknown>, journey, { format: 'sqs', peer: true });
    expect(attributes[JOURNEY_HEADER]).toEqual({ DataType: 'String', StringValue: 'jrn_abc' });
    expect(attributes.wayscribeJourneyId).toEqual({ DataType: 'String', StringValue: 'jrn_abc' });
    expect(attributes.wayscribeEntityId).toEqual({ DataType: 'String', StringValue: 'ORD-1' });
    expect(extractMessageContext(attributes)).toEqual(journey.context());
    // A consumer that only knows the peer's names joins as well.
    const peerOnly = { wayscribeJourneyId: attributes.wayscribeJourneyId, wayscribeEntityType: attributes.wayscribeEntityType, wayscribeEntityId: attributes.wayscribeEntityId };
    expect(extractMessageContext(peerOnly)).toEqual({ journeyId: 'jrn_abc', entity: { type: 'order', id: 'ORD-1' } });
    // Plain strings stay the default.
    expect(injectMessageAttributes({} as Record<string, unknown>, journey)[JOURNEY_HEADER]).toBe('jrn_abc');
  });
});

describe('hostile carriers', () => {
  const value = fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('jrn_a', 'jrn_ok.1', 'order', 'A-1'), fc.array(fc.string(), { maxLength: 3 }), fc.integer(), fc.constant(null), fc.record({ StringValue: fc.string() }));
  const names = fc.constantFrom('x-wayscribe-journey-id', 'X-Wayscribe-Journey-Id', 'x-wayscribe-entity-type', 'x-wayscribe-entity-id', 'wayscribeJourneyId', 'wayscribeEntityType', 'wayscribeEntityId', '_wayscribe', 'data', '__proto__');

  it('never throw, and a peer context holds only values of the peer pattern within jtrace lengths', () => {
    fc.assert(
      fc.property(fc.dictionary(names, value), (carrier) => {
        for (const context of [extractHttpContext(carrier), extractMessageContext(carrier), unwrapMessage({ _wayscribe: carrier, data: 1 }).context]) {
          if (context === null) continue;
          expect(context.journeyId).toMatch(/^jrn_[A-Za-z0-9_.:@=+-]{0,124}$/);
          if (context.entity !== undefined) {
            expect(context.entity.type).toMatch(/^[A-Za-z0-9_.:@=+-]{1,128}$/);
            expect(context.entity.id).toMatch(/^[A-Za-z0-9_.:@=+-]{1,256}$/);
          }
        }
      }),
    );
  });

  it('a peer value with CR, LF, space or percent never becomes a context; HTTP white space around it is not part of it', () => {
    const part = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/);
    fc.assert(
      fc.property(part, fc.constantFrom('\r', '\n', ' ', '%', '\u0000', '☃', '\t'), part, (head, bad, tail) => {
        expect(extractHttpContext({ 'x-wayscribe-journey-id': `jrn_${head}${bad}${tail}` })).toBeNull();
        expect(extractMessageContext({ wayscribeJourneyId: `jrn_${head}${bad}${tail}` })).toBeNull();
      }),
    );
    expect(extractHttpContext({ 'x-wayscribe-journey-id': 'jrn_a\r' })).toBeNull();
    expect(extractHttpContext({ 'x-wayscribe-journey-id': ' \tjrn_a ' })).toEqual({ journeyId: 'jrn_a' });
    expect(extractMessageContext({ wayscribeJourneyId: 'jrn_a ' })).toBeNull();
  });
});
