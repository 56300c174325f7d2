import { describe, expect, it } from 'vitest';
import { derivedEventId, isJourneyRecord, linkParents, mapRecord } from './mapping.ts';
import { requestFromJson } from './otlp-json.ts';
import { flattenRequest, plainValue, type OtlpRecord } from './records.ts';
import { jsonLogs, jsonTraces, type SpanSpec } from './test-payloads.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const span = (fields: Partial<SpanSpec> = {}): SpanSpec => ({
  traceId: TRACE, spanId: 'b7ad6b7169203331', name: 'charge', startMs: Date.UTC(2026, 7, 6, 16, 31, 2, 120), durationMs: 42,
  attributes: { 'jtrace.journey.id': 'jrn_1', 'jtrace.entity.type': 'order', 'jtrace.entity.id': 'o-1', 'jtrace.operation': 'delivered' },
  ...fields,
});
const spansOf = (spans: SpanSpec[], service: string | null = 'checkout') => flattenRequest(requestFromJson('traces', jsonTraces(service, spans)));

describe('plainValue', () => {
  it('keeps safe integers as numbers, larger ones as decimal strings, bytes as base64', () => {
    expect(plainValue({ intValue: '42' })).toBe(42);
    expect(plainValue({ intValue: '9007199254740993' })).toBe('9007199254740993');
    expect(plainValue({ bytesValue: Buffer.from([1, 2, 3]) })).toBe('AQID');
    expect(plainValue({ doubleValue: Number.NaN })).toBe('NaN');
    expect(plainValue({})).toBeNull();
  });

  it('keeps __proto__ as an ordinary key of a kvlist', () => {
    const value = plainValue({ kvlistValue: { values: [{ key: '__proto__', value: { stringValue: 'x' } }] } }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
  });
});

describe('mapRecord', () => {
  it('maps a span onto an envelope: times truncated to the ms, objects given as JSON strings parsed', () => {
    const [record] = spansOf([
      span({
        startMs: Date.UTC(2026, 7, 6, 16, 31, 2, 120), durationMs: 42,
        attributes: { ...span().attributes, 'jtrace.input': '{"a":1}', 'jtrace.output': 'not json', 'jtrace.metadata': { attempt: 2 }, 'jtrace.displayable_aliases': ['email'] },
      }),
    ]);
    const { envelope } = mapRecord(record!, 'production');
    expect(envelope).toEqual({
      protocolVersion: '0.1',
      event: {
        id: `otel-span-${TRACE}-b7ad6b7169203331`, journeyId: 'jrn_1', environment: 'production', service: 'checkout',
        entity: { type: 'order', id: 'o-1' }, operation: 'delivered', name: 'charge', timestamp: '2026-08-06T16:31:02.120Z',
        durationMs: 42, traceId: TRACE, spanId: 'b7ad6b7169203331', input: { a: 1 }, output: 'not json',
        displayableAliases: ['email'], metadata: { attempt: 2 },
      },
    });
  });

  it('leaves out what the record does not carry, so the pipeline can refuse it with a path', () => {
    const [record] = spansOf([span({ attributes: { 'jtrace.journey.id': 'jrn_2' } })], null);
    const { event } = mapRecord(record!, 'staging').envelope;
    expect(event).not.toHaveProperty('operation');
    expect(event.entity).toEqual({});
    expect(event.service).toBe('unknown_service');
  });

  it('takes the status message of an ERROR span, cut to the protocol length', () => {
    const [record] = spansOf([span({ status: { code: 2, message: 'x'.repeat(5000) } })]);
    const error = mapRecord(record!, 'production').envelope.event.error as { message: string };
    expect(error.message).toHaveLength(4096);
  });
});

describe('event ids', () => {
  it('derives the same id for the same log record however it is encoded, another for another record', () => {
    const logs = (body: string) => flattenRequest(requestFromJson('logs', jsonLogs('svc', [{ timeMs: 1_786_000_000_000, body, attributes: { 'jtrace.journey.id': 'j' } }])));
    expect(derivedEventId(logs('a')[0]!)).toBe(derivedEventId(logs('a')[0]!));
    expect(derivedEventId(logs('a')[0]!)).not.toBe(derivedEventId(logs('b')[0]!));
    expect(derivedEventId(logs('a')[0]!)).toMatch(/^otel-log-[0-9a-f]{48}$/);
  });

  it('hashes a span without ids from its content', () => {
    const [a, b] = spansOf([span({ traceId: '', spanId: '', name: 'a' }), span({ traceId: '', spanId: '', name: 'b' })]);
    expect(derivedEventId(a!)).toMatch(/^otel-span-[0-9a-f]{48}$/);
    expect(derivedEventId(a!)).not.toBe(derivedEventId(b!));
  });

  it('takes jtrace.event.id when given', () => {
    const [record] = spansOf([span({ attributes: { ...span().attributes, 'jtrace.event.id': 'evt_own' } })]);
    expect(mapRecord(record!, 'production').eventId).toBe('evt_own');
  });
});

describe('isJourneyRecord and linkParents', () => {
  it('skips records without jtrace.journey.id and links a child to a parent of the same export', () => {
    const records: OtlpRecord[] = spansOf([
      span({ spanId: '1111111111111111', parentSpanId: '2222222222222222' }),
      span({ spanId: '2222222222222222', attributes: { ...span().attributes, 'jtrace.event.id': 'evt_parent' } }),
      span({ spanId: '3333333333333333', parentSpanId: '4444444444444444' }),
      span({ spanId: '5555555555555555', attributes: {} }),
    ]);
    expect(records.map(isJourneyRecord)).toEqual([true, true, true, false]);
    const journeyRecords = records.filter(isJourneyRecord);
    const mapped = journeyRecords.map((record) => mapRecord(record, 'production'));
    linkParents(journeyRecords, mapped);
    // The third span's parent is not in this export: its event id is derived, as its own export derives it.
    expect(mapped.map((m) => m.envelope.event.parentEventId)).toEqual(['evt_parent', undefined, `otel-span-${TRACE}-4444444444444444`]);
  });

  it('a parent exported earlier is named by the id its own export gave its event, without a read', () => {
    const [parent] = spansOf([span({ spanId: 'aaaaaaaaaaaaaaaa' })]);
    const [child] = spansOf([span({ spanId: 'bbbbbbbbbbbbbbbb', parentSpanId: 'aaaaaaaaaaaaaaaa' })]);
    const parentEvent = mapRecord(parent!, 'production');
    linkParents([parent!], [parentEvent]);
    const childEvent = mapRecord(child!, 'production');
    linkParents([child!], [childEvent]);
    expect(childEvent.envelope.event.parentEventId).toBe(parentEvent.eventId);
    expect(parentEvent.envelope.event).not.toHaveProperty('parentEventId');
  });

  it('log records never get a parent from the span they were written in', () => {
    const records = flattenRequest(requestFromJson('logs', jsonLogs('checkout', [{ traceId: TRACE, spanId: 'cccccccccccccccc', timeMs: Date.UTC(2026, 7, 6), attributes: span().attributes }])));
    const mapped = records.map((record) => mapRecord(record, 'production'));
    linkParents(records, mapped);
    expect(mapped[0]?.envelope.event).not.toHaveProperty('parentEventId');
  });
});

describe('OTLP JSON refusals', () => {
  const reasonOf = (body: unknown): string => {
    try {
      requestFromJson('traces', body);
    } catch (error) {
      return (error as { reason: string }).reason;
    }
    throw new Error('accepted');
  };

  it('names the field protobufjs found of the wrong type', () => {
    expect(reasonOf({ resourceSpans: 'nope' })).toMatch(/resourceSpans: array expected$/);
  });

  it('never quotes the engine: a null where a message belongs is "a field has the wrong type"', () => {
    for (const body of [{ resourceSpans: [{ scopeSpans: [{ spans: [null] }] }] }, { resourceSpans: [null] }, { resourceSpans: [{ scopeSpans: [null] }] }]) {
      const reason = reasonOf(body);
      expect(reason).not.toMatch(/Cannot read|properties|undefined|null \(/);
      expect(reason).toBe('a field has the wrong type');
    }
  });
});
