// Decoding an export in slices (docs/otlp.md, "Limits"). Decoded in one call, a 4 MiB export of
// 20,000 spans held the event loop for over a second, health checks included. Here the request
// is read one span or log record at a time, with the generated OTLP messages (protobuf: the
// nesting of the export is followed with protobufjs's Reader, each record decoded by its own
// generated message; OTLP JSON: each record converted by the same `fromObject`), pausing
// between records, and counted as it goes: past the caps the export is refused at once.

import protobuf from 'protobufjs';
import { MAX_PARSE_DEPTH, JsonScanner } from '../http/json-scan.ts';
import type { Pause } from '../runtime/work-slices.ts';
import { MAX_EXPORT_ATTRIBUTE_VALUES, MAX_EXPORT_RECORDS, MAX_RECORD_ATTRIBUTE_VALUES, exportTooLarge } from './limits.ts';
import { MalformedOtlpError, requestFromJson } from './otlp-json.ts';
import { otlpRoot, type KeyValueMessage, type LogRecordMessage, type Signal, type SpanMessage } from './otlp-proto.ts';
import { MAX_VALUE_DEPTH, flattenRequest, logRecord, serviceName, spanRecord, type OtlpRecord } from './records.ts';

interface Decoder<T> {
  decode(bytes: Uint8Array): T;
}

const messages = otlpRoot as unknown as {
  resource: { v1: { Resource: Decoder<{ attributes: KeyValueMessage[] }> } };
  trace: { v1: { Span: Decoder<SpanMessage> } };
  logs: { v1: { LogRecord: Decoder<LogRecordMessage> } };
};

/**
 * Field numbers of opentelemetry-proto: ExportTraceServiceRequest.resource_spans and
 * ExportLogsServiceRequest.resource_logs (1); ResourceSpans/ResourceLogs: resource (1),
 * scope_spans/scope_logs (2); ScopeSpans/ScopeLogs: spans/log_records (2).
 */
const FIELD = { resources: 1, resource: 1, scopes: 2, records: 2 } as const;
const LENGTH_DELIMITED = 2;
/** Characters of OTLP JSON scanned between two pauses. */
const SCAN_CHUNK = 65_536;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Counts records and attribute values against the caps; throws 413 as soon as one is passed. */
class ExportBudget {
  records = 0;
  values = 0;

  /** The number of records, known before any is decoded. */
  checkRecords(count: number): void {
    if (count > MAX_EXPORT_RECORDS) throw exportTooLarge(`An export carries at most ${MAX_EXPORT_RECORDS} spans or log records; send smaller batches.`);
  }

  addRecord(values: number): void {
    this.records++;
    this.checkRecords(this.records);
    this.addValues(values);
  }

  addValues(values: number): void {
    this.values += values;
    if (this.values > MAX_EXPORT_ATTRIBUTE_VALUES) {
      throw exportTooLarge(`An export carries at most ${MAX_EXPORT_ATTRIBUTE_VALUES} attribute values (nested ones included); send smaller batches.`);
    }
  }
}

/**
 * What holds attribute values, by field number of opentelemetry-proto: a KeyValue's value (2);
 * an AnyValue's array_value (5) and kvlist_value (6), whose values (1) are AnyValues and
 * KeyValues; a Span's attributes (9), events (11) and links (13), an Event's (3), a Link's (4);
 * a LogRecord's body (5) and attributes (6); a Resource's attributes (1).
 */
type WireKind = 'keyValue' | 'anyValue' | 'arrayValue' | 'kvlist' | 'span' | 'event' | 'link' | 'logRecord' | 'resource';
const WIRE_CHILDREN: Record<WireKind, Partial<Record<number, WireKind>>> = {
  keyValue: { 2: 'anyValue' },
  anyValue: { 5: 'arrayValue', 6: 'kvlist' },
  arrayValue: { 1: 'anyValue' },
  kvlist: { 1: 'keyValue' },
  span: { 9: 'keyValue', 11: 'event', 13: 'link' },
  event: { 3: 'keyValue' },
  link: { 4: 'keyValue' },
  logRecord: { 5: 'anyValue', 6: 'keyValue' },
  resource: { 1: 'keyValue' },
};
/** Kinds that are one attribute value each: a key-value, an array element, a log body. */
const COUNTED = new Set<WireKind>(['keyValue']);

/**
 * Attribute values of one encoded record, counted on the wire without decoding it, so that a
 * record of 200,000 attributes is refused before the seconds its decoding would take. Stops
 * with a 413 as soon as the count passes MAX_RECORD_ATTRIBUTE_VALUES.
 */
export function countWireValues(kind: WireKind, bytes: Uint8Array, start: number, end: number): number {
  const counter = { values: 0 };
  walkWire(kind, bytes, start, end, 0, counter);
  return counter.values;
}

function walkWire(kind: WireKind, bytes: Uint8Array, start: number, end: number, depth: number, counter: { values: number }): void {
  // Three wire levels per value level (AnyValue, kvlist, KeyValue): never stricter than plainValue.
  if (depth > 3 * MAX_VALUE_DEPTH + 6) throw new MalformedOtlpError('an attribute value is nested too deeply');
  const children = WIRE_CHILDREN[kind];
  const reader = protobuf.Reader.create(bytes);
  reader.pos = start;
  while (reader.pos < end) {
    const tag = reader.uint32();
    const child = children[tag >>> 3];
    if ((tag & 7) !== LENGTH_DELIMITED) {
      reader.skipType(tag & 7);
      continue;
    }
    const length = reader.uint32();
    const from = reader.pos;
    if (from + length > end) throw new MalformedOtlpError('the protobuf message cannot be decoded');
    reader.pos = from + length;
    if (child === undefined) continue;
    // An array element and a log body are values as an attribute is; a key-value counts itself.
    if (COUNTED.has(child) || (child === 'anyValue' && (kind === 'arrayValue' || kind === 'logRecord'))) countOne(counter);
    walkWire(child, bytes, from, from + length, depth + 1, counter);
  }
}

function countOne(counter: { values: number }): void {
  counter.values++;
  if (counter.values > MAX_RECORD_ATTRIBUTE_VALUES) throw recordTooLarge();
}

function recordTooLarge() {
  return exportTooLarge(`A span, log record or resource carries at most ${MAX_RECORD_ATTRIBUTE_VALUES} attribute values (nested ones included).`);
}

/** The same count on OTLP JSON, before the record is converted. */
function countJsonValues(item: unknown, signal: Signal | 'resource'): number {
  const counter = { values: 0 };
  const pairs = (list: unknown, depth: number) => {
    if (!Array.isArray(list)) return;
    for (const pair of list) {
      countOne(counter);
      value(isObject(pair) ? pair.value : undefined, depth);
    }
  };
  const value = (item: unknown, depth: number): void => {
    if (!isObject(item)) return;
    if (depth > MAX_VALUE_DEPTH) throw new MalformedOtlpError('an attribute value is nested too deeply');
    const array = isObject(item.arrayValue) ? item.arrayValue.values : undefined;
    if (Array.isArray(array)) {
      for (const element of array) {
        countOne(counter);
        value(element, depth + 1);
      }
    }
    if (isObject(item.kvlistValue)) pairs(item.kvlistValue.values, depth + 1);
  };
  if (!isObject(item)) return 0;
  pairs(item.attributes, 1);
  if (signal === 'traces') {
    for (const list of [item.events, item.links]) if (Array.isArray(list)) for (const entry of list) if (isObject(entry)) pairs(entry.attributes, 1);
  }
  if (signal === 'logs' && item.body !== undefined && item.body !== null) {
    countOne(counter);
    value(item.body, 1);
  }
  return counter.values;
}

/** The records of a protobuf export, decoded one at a time. Throws MalformedOtlpError or a 413. */
export async function decodeProtobufSliced(signal: Signal, bytes: Uint8Array, pause: Pause): Promise<OtlpRecord[]> {
  const budget = new ExportBudget();
  const records: OtlpRecord[] = [];
  try {
    const groups = fieldsOf(bytes, 0, bytes.length, FIELD.resources).map(([start, end]) => {
      const parts = fieldsOf(bytes, start, end);
      const items = parts.filter(([field]) => field === FIELD.scopes).flatMap(([, from, to]) => fieldsOf(bytes, from, to, FIELD.records));
      return { resources: parts.filter(([field]) => field === FIELD.resource), items };
    });
    // Counted before anything is decoded: an export over the cap costs a walk over its framing.
    budget.checkRecords(groups.reduce((sum, group) => sum + group.items.length, 0));
    for (const group of groups) {
      let resource: { attributes: KeyValueMessage[] } | null = null;
      // A repeated message field keeps its last occurrence, as the generated decoder does.
      for (const [, start, end] of group.resources) {
        budget.addValues(countWireValues('resource', bytes, start, end));
        resource = messages.resource.v1.Resource.decode(bytes.subarray(start, end));
      }
      const service = serviceName(resource);
      for (const [start, end] of group.items) {
        budget.addValues(countWireValues(signal === 'traces' ? 'span' : 'logRecord', bytes, start, end));
        const item = bytes.subarray(start, end);
        records.push(signal === 'traces' ? spanRecord(messages.trace.v1.Span.decode(item), service) : logRecord(messages.logs.v1.LogRecord.decode(item), service));
        await pause();
      }
    }
  } catch (error) {
    if (error instanceof MalformedOtlpError || (error as { status?: number }).status === 413) throw error;
    throw new MalformedOtlpError('the protobuf message cannot be decoded');
  }
  return records;
}

/**
 * The length-delimited fields of the message in bytes[start, end), in wire order, as
 * [field, start, end] (only those numbered `only`, as [start, end], when given); other fields are
 * skipped as protobufjs's generated decoders skip unknown ones.
 */
function fieldsOf(bytes: Uint8Array, start: number, end: number): Array<[number, number, number]>;
function fieldsOf(bytes: Uint8Array, start: number, end: number, only: number): Array<[number, number]>;
function fieldsOf(bytes: Uint8Array, start: number, end: number, only?: number): Array<[number, number, number]> | Array<[number, number]> {
  const all: Array<[number, number, number]> = [];
  const some: Array<[number, number]> = [];
  const reader = protobuf.Reader.create(bytes);
  reader.pos = start;
  while (reader.pos < end) {
    const tag = reader.uint32();
    if ((tag & 7) !== LENGTH_DELIMITED) {
      reader.skipType(tag & 7);
      continue;
    }
    const length = reader.uint32();
    const from = reader.pos;
    if (from + length > end) throw new MalformedOtlpError('the protobuf message cannot be decoded');
    reader.pos = from + length;
    if (only === undefined) all.push([tag >>> 3, from, from + length]);
    else if (tag >>> 3 === only) some.push([from, from + length]);
  }
  if (reader.pos !== end) throw new MalformedOtlpError('the protobuf message cannot be decoded');
  return only === undefined ? all : some;
}

/**
 * OTLP JSON, scanned for its nesting in chunks, parsed, then converted one record at a time.
 * Returns null when the text is not JSON (the route answers malformed_json).
 */
export async function decodeJsonSliced(signal: Signal, bytes: Buffer, pause: Pause): Promise<OtlpRecord[] | null> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  const scanner = new JsonScanner(false);
  for (let at = 0; at < text.length; at += SCAN_CHUNK) {
    if (!scanner.push(text.slice(at, at + SCAN_CHUNK))) return null;
    await pause();
  }
  if (scanner.end() === null) return null;
  // An export has no per-record depth verdict: pruned values would be silently lost.
  if (scanner.maxDepth > MAX_PARSE_DEPTH) throw new MalformedOtlpError(`values are nested more than ${MAX_PARSE_DEPTH} levels deep`);
  await pause();
  return jsonRecords(signal, JSON.parse(text) as unknown, pause);
}

const KEYS = {
  traces: { resources: 'resourceSpans', scopes: 'scopeSpans', records: 'spans' },
  logs: { resources: 'resourceLogs', scopes: 'scopeLogs', records: 'logRecords' },
} as const;

async function jsonRecords(signal: Signal, value: unknown, pause: Pause): Promise<OtlpRecord[]> {
  const keys = KEYS[signal];
  const budget = new ExportBudget();
  /** The export request holding only `resource` (its scopes as given): fromObject checks it as a whole request. */
  const request = (resource: unknown) => requestFromJson(signal, { [keys.resources]: [resource] });
  const isList = (list: unknown) => list === undefined || list === null || Array.isArray(list);
  // A shape fromObject would refuse is handed to it as found, so that its refusal names the field.
  if (!isObject(value) || !isList(value[keys.resources])) return flattenRequest(requestFromJson(signal, value));
  const resources = (value[keys.resources] as unknown[] | null | undefined) ?? [];
  let count = 0;
  for (const resource of resources) {
    const scopes = isObject(resource) ? resource[keys.scopes] : undefined;
    for (const scope of Array.isArray(scopes) ? (scopes as unknown[]) : []) {
      const items = isObject(scope) ? scope[keys.records] : undefined;
      count += Array.isArray(items) ? items.length : 0;
    }
  }
  budget.checkRecords(count);
  const records: OtlpRecord[] = [];
  for (const resource of resources) {
    if (!isObject(resource) || !isList(resource[keys.scopes])) {
      records.push(...counted(flattenRequest(request(resource)), budget));
      continue;
    }
    budget.addValues(countJsonValues(resource.resource, 'resource'));
    const resourceMessage = firstResource(request({ ...resource, [keys.scopes]: [] }).message);
    const service = serviceName(resourceMessage);
    for (const scope of (resource[keys.scopes] as unknown[] | null | undefined) ?? []) {
      if (!isObject(scope) || !Array.isArray(scope[keys.records])) {
        records.push(...counted(flattenRequest(request({ ...resource, [keys.scopes]: [scope] })), budget));
        continue;
      }
      request({ [keys.scopes]: [{ ...scope, [keys.records]: [] }] });
      for (const item of scope[keys.records] as unknown[]) {
        budget.addRecord(countJsonValues(item, signal));
        const message = onlyRecord(request({ [keys.scopes]: [{ [keys.records]: [item] }] }).message);
        records.push(signal === 'traces' ? spanRecord(message as SpanMessage, service) : logRecord(message as LogRecordMessage, service));
        await pause();
      }
    }
  }
  return records;
}

type AnyRequest = { resourceSpans?: Array<ResourceGroup<'scopeSpans', 'spans'>>; resourceLogs?: Array<ResourceGroup<'scopeLogs', 'logRecords'>> };
type ResourceGroup<S extends string, R extends string> = { resource?: { attributes: KeyValueMessage[] } | null } & Record<S, Array<Record<R, unknown[]>>>;

function firstResource(message: object): { attributes: KeyValueMessage[] } | null | undefined {
  const request = message as AnyRequest;
  return (request.resourceSpans ?? request.resourceLogs)?.[0]?.resource;
}

function onlyRecord(message: object): unknown {
  const request = message as AnyRequest;
  return request.resourceSpans?.[0]?.scopeSpans[0]?.spans[0] ?? request.resourceLogs?.[0]?.scopeLogs[0]?.logRecords[0];
}

/** Records converted in one piece (a shape only fromObject judges): counted, their attributes as flattened. */
function counted(records: OtlpRecord[], budget: ExportBudget): OtlpRecord[] {
  for (const record of records) budget.addRecord(record.attributes.size);
  return records;
}
