// Caps of one OTLP export (docs/otlp.md, "Limits"), beside OTLP_MAX_REQUEST_BYTES: a body within
// the byte cap can still carry work out of proportion to its size.

import { AppError } from '../http/errors.ts';

/**
 * Spans or log records in one export: OpenTelemetry SDKs export batches of 512, the Collector
 * 8,192 by default. A larger export is refused whole (413), before the rest is decoded.
 */
export const MAX_EXPORT_RECORDS = 10_000;
/**
 * Attribute values in one export: every attribute of a resource, span, span event, link or log
 * record, each element of an array and each entry of a kvlist, and a log record's body. 265,000
 * tiny attributes fit in 4 MiB and cost more to decode and map than 20,000 ordinary spans.
 */
export const MAX_EXPORT_ATTRIBUTE_VALUES = 200_000;

/**
 * Attribute values of one span, log record or resource, counted on the wire before it is
 * decoded: one record is decoded in one call, and 10,000 values take a few milliseconds.
 */
export const MAX_RECORD_ATTRIBUTE_VALUES = 10_000;

export function exportTooLarge(message: string): AppError {
  return new AppError(413, 'payload_too_large', message, [{ path: 'body', message }]);
}
