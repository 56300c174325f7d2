import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.ts';
import { workSlicer } from '../runtime/work-slices.ts';
import { MAX_EXPORT_ATTRIBUTE_VALUES, MAX_EXPORT_RECORDS, MAX_RECORD_ATTRIBUTE_VALUES } from './limits.ts';
import { decodeRecords, decodeRecordsSliced } from './request-body.ts';
import { jsonLogs, jsonTraces, toProtobuf, type AttributeValue, type LogSpec, type SpanSpec } from './test-payloads.ts';

const never = workSlicer(Infinity);
const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
const value: fc.Arbitrary<AttributeValue> = fc.letrec<{ value: AttributeValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const attributes = fc.dictionary(fc.oneof(fc.constantFrom('jtrace.journey.id', 'jtrace.operation', 'jtrace.input', 'service.name'), fc.string({ maxLength: 8 })), value, { maxKeys: 5 });
const span: fc.Arbitrary<SpanSpec> = fc.record({
  traceId: hex(32), spanId: hex(16), parentSpanId: fc.option(hex(16), { nil: undefined }), name: fc.string({ maxLength: 10 }),
  startMs: fc.integer({ min: 0, max: 2 ** 40 }), durationMs: fc.integer({ min: 0, max: 10_000 }), attributes,
  events: fc.array(fc.record({ name: fc.constantFrom('exception', 'other'), attributes }), { maxLength: 2 }),
}, { requiredKeys: ['traceId', 'spanId', 'name', 'startMs', 'durationMs'] });
const log: fc.Arbitrary<LogSpec> = fc.record({ timeMs: fc.integer({ min: 0, max: 2 ** 40 }), severityNumber: fc.integer({ min: 0, max: 24 }), body: value, attributes }, { requiredKeys: ['timeMs'] });

/** The sliced decoding must read every export exactly as the one-piece decoding did. */
async function sameRecords(signal: 'traces' | 'logs', json: object): Promise<void> {
  const protobuf = toProtobuf(signal, json);
  const text = Buffer.from(JSON.stringify(json));
  expect(await decodeRecordsSliced(signal, 'protobuf', protobuf, never)).toEqual(decodeRecords(signal, 'protobuf', protobuf));
  expect(await decodeRecordsSliced(signal, 'json', text, never)).toEqual(decodeRecords(signal, 'json', text));
}

async function refusal(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('decodeRecordsSliced', () => {
  it('reads any export as the one-piece decoding does, in both encodings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(fc.string({ maxLength: 8 }), { nil: null }), fc.array(span, { maxLength: 4 }), fc.array(log, { maxLength: 4 }), async (service, spans, logs) => {
        await sameRecords('traces', jsonTraces(service, spans));
        await sameRecords('logs', jsonLogs(service, logs));
      }),
      { numRuns: 60 },
    );
  });

  it('reads a resource sent after its records, and several resources, as the one-piece decoding does', async () => {
    const [first] = (jsonTraces('a', [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 'x', startMs: 1, durationMs: 1 }]) as { resourceSpans: object[] }).resourceSpans;
    const second = { scopeSpans: [{ spans: [{ traceId: 'ef'.repeat(16), spanId: '01'.repeat(8), name: 'y' }] }], resource: { attributes: [{ key: 'service.name', value: { stringValue: 'b' } }] } };
    await sameRecords('traces', { resourceSpans: [first, second] });
  });

  it('hands the event loop back while it decodes a large export', async () => {
    const spans = Array.from({ length: 2_000 }, (_, i) => ({ traceId: 'ab'.repeat(16), spanId: i.toString(16).padStart(16, '0'), name: 's', startMs: i, durationMs: 1, attributes: { 'jtrace.journey.id': `j${i}` } }));
    for (const [format, bytes] of [['protobuf', toProtobuf('traces', jsonTraces('svc', spans))], ['json', Buffer.from(JSON.stringify(jsonTraces('svc', spans)))]] as const) {
      let ran = false;
      setImmediate(() => (ran = true));
      const records = await decodeRecordsSliced('traces', format, bytes, workSlicer(0));
      expect(records).toHaveLength(2_000);
      expect(ran).toBe(true);
    }
  });

  it('refuses with 413 an export over the record cap, in both encodings', async () => {
    const spans = Array.from({ length: MAX_EXPORT_RECORDS + 1 }, (_, i) => ({ traceId: 'ab'.repeat(16), spanId: i.toString(16).padStart(16, '0'), name: 's', startMs: i, durationMs: 1 }));
    const json = jsonTraces('svc', spans);
    for (const [format, bytes] of [['protobuf', toProtobuf('traces', json)], ['json', Buffer.from(JSON.stringify(json))]] as const) {
      const error = await refusal(decodeRecordsSliced('traces', format, bytes, never));
      expect([error.status, error.code]).toEqual([413, 'payload_too_large']);
      expect(error.details).toEqual([{ path: 'body', message: expect.stringContaining(String(MAX_EXPORT_RECORDS)) }]);
    }
  });

  it('refuses with 413 one record over the per-record cap of attribute values, nested ones counted', async () => {
    const nested = Object.fromEntries(Array.from({ length: MAX_RECORD_ATTRIBUTE_VALUES }, (_, i) => [`k${i}`, 'v']));
    const cases: Array<[string, object]> = [
      ['traces', jsonTraces('svc', [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 's', startMs: 1, durationMs: 1, attributes: { wide: nested } }])],
      ['traces', jsonTraces('svc', [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 's', startMs: 1, durationMs: 1, events: [{ name: 'e', attributes: nested }], attributes: { one: 'x' } }])],
      ['logs', jsonLogs('svc', [{ timeMs: 1, body: Object.values(nested) }])],
    ];
    for (const [signal, json] of cases as Array<['traces' | 'logs', object]>) {
      for (const [format, bytes] of [['protobuf', toProtobuf(signal, json)], ['json', Buffer.from(JSON.stringify(json))]] as const) {
        const error = await refusal(decodeRecordsSliced(signal, format, bytes, never));
        expect([error.status, error.code, error.message]).toEqual([413, 'payload_too_large', expect.stringContaining(String(MAX_RECORD_ATTRIBUTE_VALUES))]);
      }
    }
    // At the cap exactly: accepted.
    const atCap = jsonTraces('svc', [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 's', startMs: 1, durationMs: 1, attributes: Object.fromEntries(Object.entries(nested).slice(1)) }]);
    expect(await decodeRecordsSliced('traces', 'protobuf', toProtobuf('traces', atCap), never)).toHaveLength(1);
  });

  it('refuses with 413 an export over the cap of attribute values, each record within its own', async () => {
    const perSpan = MAX_RECORD_ATTRIBUTE_VALUES / 2;
    const spans = Array.from({ length: Math.ceil(MAX_EXPORT_ATTRIBUTE_VALUES / perSpan) + 1 }, (_, i) => ({
      traceId: 'ab'.repeat(16), spanId: i.toString(16).padStart(16, '0'), name: 's', startMs: i, durationMs: 1,
      attributes: Object.fromEntries(Array.from({ length: perSpan }, (_, k) => [`k${k}`, 1])),
    }));
    const error = await refusal(decodeRecordsSliced('traces', 'protobuf', toProtobuf('traces', jsonTraces('svc', spans)), never));
    expect([error.status, error.message]).toEqual([413, expect.stringContaining(String(MAX_EXPORT_ATTRIBUTE_VALUES))]);
  });
});
