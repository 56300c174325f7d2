import { requestFromObject, type ExportRequest, type Signal } from './otlp-proto.ts';

/**
 * OTLP JSON (OTLP/HTTP, JSON Protobuf Encoding): the proto3 JSON mapping with lowerCamelCase
 * names and integer enums, except that trace and span ids are hex strings, not base64. The ids
 * are turned into bytes here; everything else is read by the generated `fromObject`, the same
 * message code the protobuf path decodes with.
 */

export class MalformedOtlpError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'MalformedOtlpError';
  }
}

const HEX = /^(?:[0-9a-f]{2})*$/i;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hexToBytes(value: unknown, field: string): unknown {
  if (typeof value !== 'string') return value;
  if (!HEX.test(value)) throw new MalformedOtlpError(`${field} must be a hex string`);
  return Buffer.from(value, 'hex');
}

/** Times are unsigned 64-bit: fromObject would read any object as a Long, so they are checked first. */
const TIME_FIELDS = ['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'observedTimeUnixNano'] as const;
const UNSIGNED = /^\d{1,20}$/;

function checkTime(value: unknown, field: string): void {
  const valid = (typeof value === 'string' && UNSIGNED.test(value)) || (Number.isSafeInteger(value) && (value as number) >= 0);
  if (!valid) throw new MalformedOtlpError(`${field} must be an unsigned integer`);
}

/** A copy of `item` with its id fields as bytes; anything not an object is left for fromObject to refuse. */
function withIdBytes(item: unknown, fields: readonly string[]): unknown {
  if (!isObject(item)) return item;
  const copy: Record<string, unknown> = { ...item };
  for (const field of fields) {
    if (field in copy) copy[field] = hexToBytes(copy[field], field);
  }
  for (const field of TIME_FIELDS) {
    if (copy[field] !== undefined && copy[field] !== null) checkTime(copy[field], field);
  }
  if (Array.isArray(copy.links)) copy.links = copy.links.map((link) => withIdBytes(link, ['traceId', 'spanId']));
  return copy;
}

/** Maps `list` (when it is an array) through `fn`; other values are left for fromObject to refuse. */
function mapList(list: unknown, fn: (item: unknown) => unknown): unknown {
  return Array.isArray(list) ? list.map(fn) : list;
}

function mapChild(item: unknown, key: string, fn: (item: unknown) => unknown): unknown {
  return isObject(item) ? { ...item, [key]: mapList(item[key], fn) } : item;
}

const SPAN_IDS = ['traceId', 'spanId', 'parentSpanId'] as const;
const LOG_IDS = ['traceId', 'spanId'] as const;

/** Throws MalformedOtlpError when the value is not the signal's export request. */
export function requestFromJson(signal: Signal, value: unknown): ExportRequest {
  if (!isObject(value)) throw new MalformedOtlpError('the body must be a JSON object');
  const converted =
    signal === 'traces'
      ? mapChild(value, 'resourceSpans', (resource) =>
          mapChild(resource, 'scopeSpans', (scope) => mapChild(scope, 'spans', (span) => withIdBytes(span, SPAN_IDS)))
        )
      : mapChild(value, 'resourceLogs', (resource) =>
          mapChild(resource, 'scopeLogs', (scope) => mapChild(scope, 'logRecords', (record) => withIdBytes(record, LOG_IDS)))
        );
  try {
    return requestFromObject(signal, converted as object);
  } catch (error) {
    // fromObject names the field in its own TypeError ("<field>: object expected"); any other
    // error (the engine's "Cannot read properties of null", a wrong-typed int64 in Long) is
    // not quoted: its text describes the code, not the request.
    throw new MalformedOtlpError(error instanceof TypeError && FIELD_TYPE_ERROR.test(error.message) ? error.message : 'a field has the wrong type');
  }
}

/** The TypeErrors of protobufjs's generated fromObject: a message or field name, then what was expected. */
const FIELD_TYPE_ERROR = /^\.?[A-Za-z_][\w.]*: (?:object|array|buffer) expected$/;
