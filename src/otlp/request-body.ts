import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { parseJsonBodyWithBudget } from '../http/body-parsers.ts';
import { MAX_PARSE_DEPTH } from '../http/json-scan.ts';
import { AppError } from '../http/errors.ts';
import { MalformedOtlpError, requestFromJson } from './otlp-json.ts';
import { decodeProtobufRequest, type ExportRequest, type Signal } from './otlp-proto.ts';
import { flattenRequest, type OtlpRecord } from './records.ts';
import type { Pause } from '../runtime/work-slices.ts';
import { decodeJsonSliced, decodeProtobufSliced } from './sliced-decode.ts';

const gunzipAsync = promisify(gunzip);

export type BodyFormat = 'protobuf' | 'json';
export type BodyEncoding = 'gzip' | 'identity';

export function tooLarge(): AppError {
  return new AppError(413, 'payload_too_large', 'The request body is larger than allowed.');
}

function malformed(reason: string): AppError {
  return new AppError('invalid_request', `The body is not a valid OTLP export request: ${reason}.`, [
    { path: 'body', message: reason },
  ]);
}

function unsupported(message: string): AppError {
  return new AppError('unsupported_media_type', message);
}

/** The two OTLP/HTTP encodings; parameters such as charset are ignored. Anything else is 415. */
export function bodyFormat(contentType: string | undefined): BodyFormat {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'application/x-protobuf') return 'protobuf';
  if (mediaType === 'application/json') return 'json';
  throw unsupported('Send the body as application/x-protobuf or application/json.');
}

export function bodyEncoding(contentEncoding: string | undefined): BodyEncoding {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === 'gzip') return 'gzip';
  if (encoding === '' || encoding === 'identity') return 'identity';
  throw unsupported('Send the body uncompressed or with Content-Encoding: gzip.');
}

/** Inflates at most maxBytes: a small gzip body must not become a huge one in memory. */
export async function inflate(body: Buffer, encoding: BodyEncoding, maxBytes: number): Promise<Buffer> {
  if (encoding === 'identity') return body;
  try {
    return await gunzipAsync(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw malformed('the gzip stream is corrupt');
  }
}

function decodeRequest(signal: Signal, format: BodyFormat, bytes: Buffer): ExportRequest {
  if (format === 'json') {
    // The envelope routes read over-deep containers as [] and refuse per event; an export has no
    // per-record depth verdict, so pruned values would be silently lost: refuse the request.
    const parsed = parseJsonBodyWithBudget(bytes);
    if (parsed.pruned) throw new MalformedOtlpError(`values are nested more than ${MAX_PARSE_DEPTH} levels deep`);
    return requestFromJson(signal, parsed.value);
  }
  try {
    return decodeProtobufRequest(signal, bytes);
  } catch {
    throw new MalformedOtlpError('the protobuf message cannot be decoded');
  }
}

/** Decodes with the official OTLP messages; any failure is a 400 naming what was wrong. */
export function decodeRecords(signal: Signal, format: BodyFormat, bytes: Buffer): OtlpRecord[] {
  try {
    return flattenRequest(decodeRequest(signal, format, bytes));
  } catch (error) {
    if (error instanceof MalformedOtlpError) throw malformed(error.reason);
    throw error;
  }
}

/**
 * decodeRecords one record at a time, pausing between records (sliced-decode.ts), and refusing
 * with 413 an export over MAX_EXPORT_RECORDS or MAX_EXPORT_ATTRIBUTE_VALUES as soon as it is.
 */
export async function decodeRecordsSliced(signal: Signal, format: BodyFormat, bytes: Buffer, pause: Pause): Promise<OtlpRecord[]> {
  try {
    if (format === 'protobuf') return await decodeProtobufSliced(signal, bytes, pause);
    const records = await decodeJsonSliced(signal, bytes, pause);
    if (records === null) throw new AppError('malformed_json', 'The body is not valid JSON.');
    return records;
  } catch (error) {
    if (error instanceof MalformedOtlpError) throw malformed(error.reason);
    throw error;
  }
}
