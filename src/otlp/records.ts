import { MalformedOtlpError } from './otlp-json.ts';
import type { AnyValueMessage, ExportRequest, Int64, KeyValueMessage, LogRecordMessage, Signal, SpanMessage } from './otlp-proto.ts';

/** One span or log record, flattened with its resource's service name; ids in lower-case hex. */
export interface OtlpRecord {
  signal: Signal;
  /** Resource attribute `service.name`. */
  service: string | undefined;
  /** The span name; undefined for a log record. */
  spanName: string | undefined;
  /** '' when absent or all zeros (an invalid id in OTLP). */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** Span start, or the log record's time (its observed time when unset); 0n when neither is set. */
  timeNs: bigint;
  /** Span end; null for a log record. */
  endNs: bigint | null;
  error: { type?: string; message: string; stack?: string } | null;
  attributes: Map<string, unknown>;
  /** A stable rendering of everything the record carries, for derived event ids of log records. */
  fingerprint: unknown;
}

/** OTLP nests values freely; the event protocol keeps 32 levels, so deeper is refused early. */
export const MAX_VALUE_DEPTH = 64;
/** Span status code ERROR (opentelemetry.proto.trace.v1.Status.StatusCode). */
const STATUS_CODE_ERROR = 2;
/** SeverityNumber ERROR and above (opentelemetry.proto.logs.v1.SeverityNumber). */
const SEVERITY_ERROR = 17;

function int64(value: Int64 | null | undefined): bigint {
  if (value === null || value === undefined) return 0n;
  return BigInt(String(value));
}

function hex(bytes: Uint8Array | null | undefined): string {
  if (!bytes || bytes.length === 0 || bytes.every((byte) => byte === 0)) return '';
  return Buffer.from(bytes).toString('hex');
}

/** An OTLP AnyValue as plain JSON: int64 beyond 2^53 as a decimal string, bytes as base64. */
export function plainValue(value: AnyValueMessage | null | undefined, depth = 0): unknown {
  if (depth > MAX_VALUE_DEPTH) throw new MalformedOtlpError('an attribute value is nested too deeply');
  if (value === null || value === undefined) return null;
  if (value.stringValue !== null && value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== null && value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== null && value.intValue !== undefined) {
    const big = int64(value.intValue);
    const small = Number(big);
    return Number.isSafeInteger(small) ? small : big.toString();
  }
  if (value.doubleValue !== null && value.doubleValue !== undefined) {
    return Number.isFinite(value.doubleValue) ? value.doubleValue : String(value.doubleValue);
  }
  if (value.arrayValue) return (value.arrayValue.values ?? []).map((item) => plainValue(item, depth + 1));
  if (value.kvlistValue) return plainObject(value.kvlistValue.values ?? [], depth + 1);
  if (value.bytesValue) return Buffer.from(value.bytesValue).toString('base64');
  return null;
}

/** Object.fromEntries defines own properties, so `__proto__` stays an ordinary key. */
function plainObject(pairs: KeyValueMessage[], depth: number): Record<string, unknown> {
  return Object.fromEntries(pairs.map((pair) => [pair.key, plainValue(pair.value, depth)]));
}

function attributeMap(pairs: KeyValueMessage[] | null | undefined): Map<string, unknown> {
  return new Map((pairs ?? []).map((pair) => [pair.key, plainValue(pair.value, 1)]));
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Error fields are cut to the event protocol's limits (2.3), in code points. */
const ERROR_LIMITS = { type: 256, message: 4_096, stack: 16_384 } as const;

function cut(value: string, limit: number): string {
  if (value.length <= limit) return value;
  return Array.from(value).slice(0, limit).join('');
}

function errorOf(type: string | undefined, message: string, stack: string | undefined): NonNullable<OtlpRecord['error']> {
  return {
    ...(type ? { type: cut(type, ERROR_LIMITS.type) } : {}),
    message: cut(message, ERROR_LIMITS.message),
    ...(stack ? { stack: cut(stack, ERROR_LIMITS.stack) } : {}),
  };
}

/** OpenTelemetry's exception semantic conventions, on a span event or a log record. */
function exceptionError(attributes: Map<string, unknown>): OtlpRecord['error'] {
  const type = text(attributes.get('exception.type'));
  const message = text(attributes.get('exception.message'));
  if (type === undefined && message === undefined) return null;
  const stack = text(attributes.get('exception.stacktrace'));
  return errorOf(type, message ?? type!, stack);
}

function spanError(span: SpanMessage): OtlpRecord['error'] {
  for (const event of span.events ?? []) {
    if (event.name === 'exception') {
      const error = exceptionError(attributeMap(event.attributes));
      if (error) return error;
    }
  }
  if (span.status?.code === STATUS_CODE_ERROR) return errorOf(undefined, span.status.message || 'Span status ERROR', undefined);
  return null;
}

export function spanRecord(span: SpanMessage, service: string | undefined): OtlpRecord {
  const attributes = attributeMap(span.attributes);
  return {
    signal: 'traces',
    service,
    spanName: span.name,
    traceId: hex(span.traceId),
    spanId: hex(span.spanId),
    parentSpanId: hex(span.parentSpanId),
    timeNs: int64(span.startTimeUnixNano),
    endNs: int64(span.endTimeUnixNano),
    error: spanError(span),
    attributes,
    fingerprint: [service ?? null, String(span.startTimeUnixNano), String(span.endTimeUnixNano), [...attributes]],
  };
}

function logError(record: LogRecordMessage, attributes: Map<string, unknown>, body: unknown): OtlpRecord['error'] {
  const exception = exceptionError(attributes);
  if (exception) return exception;
  if (record.severityNumber < SEVERITY_ERROR) return null;
  return errorOf(undefined, text(body) ?? (record.severityText || 'ERROR'), undefined);
}

export function logRecord(record: LogRecordMessage, service: string | undefined): OtlpRecord {
  const attributes = attributeMap(record.attributes);
  const body = plainValue(record.body, 1);
  const time = int64(record.timeUnixNano);
  const observed = int64(record.observedTimeUnixNano);
  return {
    signal: 'logs',
    service,
    spanName: undefined,
    traceId: hex(record.traceId),
    spanId: hex(record.spanId),
    parentSpanId: '',
    timeNs: time !== 0n ? time : observed,
    endNs: null,
    error: logError(record, attributes, body),
    attributes,
    fingerprint: [service ?? null, String(time), String(observed), record.severityNumber, record.severityText, body, [...attributes]],
  };
}

export function serviceName(resource: { attributes: KeyValueMessage[] } | null | undefined): string | undefined {
  return text(attributeMap(resource?.attributes).get('service.name'));
}

/** Every span or log record of an export request, in request order. */
export function flattenRequest(request: ExportRequest): OtlpRecord[] {
  const records: OtlpRecord[] = [];
  if (request.signal === 'traces') {
    for (const resourceSpans of request.message.resourceSpans ?? []) {
      const service = serviceName(resourceSpans.resource);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) records.push(spanRecord(span, service));
      }
    }
  } else {
    for (const resourceLogs of request.message.resourceLogs ?? []) {
      const service = serviceName(resourceLogs.resource);
      for (const scope of resourceLogs.scopeLogs ?? []) {
        for (const record of scope.logRecords ?? []) records.push(logRecord(record, service));
      }
    }
  }
  return records;
}
