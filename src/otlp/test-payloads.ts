// OTLP export requests for the OTLP tests and benchmark (never part of the build).
import { requestFromJson } from './otlp-json.ts';
import { encodeProtobufRequest, type Signal } from './otlp-proto.ts';

export type AttributeValue = string | number | boolean | AttributeValue[] | { [key: string]: AttributeValue };

/** An OTLP JSON AnyValue: whole numbers become intValue, others doubleValue. */
export function anyValue(value: AttributeValue): object {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  return { kvlistValue: { values: keyValues(value) } };
}

export function keyValues(attributes: Record<string, AttributeValue>): object[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

export interface SpanSpec {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs: number;
  durationMs: number;
  attributes?: Record<string, AttributeValue>;
  status?: { code: number; message?: string };
  events?: Array<{ name: string; attributes: Record<string, AttributeValue> }>;
}

const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString();

/** An OTLP JSON ExportTraceServiceRequest with one resource and one scope. */
export function jsonTraces(service: string | null, spans: SpanSpec[]): object {
  return {
    resourceSpans: [
      {
        resource: { attributes: service === null ? [] : keyValues({ 'service.name': service }) },
        scopeSpans: [
          {
            scope: { name: 'jtrace-test' },
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: 1,
              startTimeUnixNano: nanos(span.startMs),
              endTimeUnixNano: nanos(span.startMs + span.durationMs),
              attributes: keyValues(span.attributes ?? {}),
              events: (span.events ?? []).map((event) => ({ name: event.name, timeUnixNano: nanos(span.startMs), attributes: keyValues(event.attributes) })),
              ...(span.status ? { status: span.status } : {}),
            })),
          },
        ],
      },
    ],
  };
}

export interface LogSpec {
  timeMs: number;
  severityNumber?: number;
  body?: AttributeValue;
  attributes?: Record<string, AttributeValue>;
  traceId?: string;
  spanId?: string;
}

export function jsonLogs(service: string | null, records: LogSpec[]): object {
  return {
    resourceLogs: [
      {
        resource: { attributes: service === null ? [] : keyValues({ 'service.name': service }) },
        scopeLogs: [
          {
            scope: { name: 'jtrace-test' },
            logRecords: records.map((record) => ({
              timeUnixNano: nanos(record.timeMs),
              observedTimeUnixNano: nanos(record.timeMs),
              severityNumber: record.severityNumber ?? 9,
              ...(record.body !== undefined ? { body: anyValue(record.body) } : {}),
              attributes: keyValues(record.attributes ?? {}),
              ...(record.traceId ? { traceId: record.traceId, spanId: record.spanId } : {}),
            })),
          },
        ],
      },
    ],
  };
}

/** The same request as protobuf bytes. */
export function toProtobuf(signal: Signal, json: object): Buffer {
  return Buffer.from(encodeProtobufRequest(requestFromJson(signal, json)));
}

let sequence = 0;
/** A fresh hex id of `bytes` bytes, unique in this process. */
export function hexId(bytes: 16 | 8): string {
  sequence++;
  return (process.pid.toString(16) + Date.now().toString(16) + sequence.toString(16).padStart(8, '0')).padStart(bytes * 2, 'a').slice(-bytes * 2);
}
