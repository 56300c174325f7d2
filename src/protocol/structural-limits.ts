// Structural limits of one parsed envelope (event-protocol 9.1, step 1 of 2.7). They run before
// the schema so that every later walk (validation, hash, capture, diff) works on bounded input,
// and they are checked in a fixed order so that one envelope always gets the same refusal:
// depth-first in document order, a container's own width before its members, first violation
// wins, and only then the serialized size.

import type { ErrorDetail } from './error-detail.ts';
import { utf8ByteLength } from './identifiers.ts';
import { MAX_DEPTH, MAX_STRING_UNITS, MAX_WIDTH } from './limits.ts';

export type StructuralRefusalCode =
  | 'max_depth_exceeded'
  | 'max_keys_exceeded'
  | 'max_string_length_exceeded'
  | 'payload_too_large';

export interface StructuralRefusal {
  code: StructuralRefusalCode;
  message: string;
  details?: ErrorDetail[];
}

/** What one walk of an envelope tells: its first refusal, and whether all of its text is storable. */
export interface EnvelopeInspection {
  refusal: StructuralRefusal | null;
  /**
   * True when no string or key anywhere in the envelope holds U+0000 or an unpaired surrogate:
   * then nothing taken from it can be unstorable (src/protocol/storability.ts), and the walks
   * that look for such text can be skipped. False when unknown (a refused envelope, or values
   * that are not plain JSON data).
   */
  storableText: boolean;
}

/**
 * null when the envelope is within every limit, else the first refusal.
 * `maxEventPayloadBytes` is the configured MAX_EVENT_PAYLOAD_BYTES.
 */
export function checkStructuralLimits(
  envelope: unknown,
  maxEventPayloadBytes: number,
): StructuralRefusal | null {
  return inspectEnvelope(envelope, maxEventPayloadBytes).refusal;
}

/**
 * checkStructuralLimits and more in one walk: the compact-JSON size is added up while the limits
 * are checked (rather than by serializing the envelope once more), and the text is checked for
 * what cannot be stored on the way.
 */
export function inspectEnvelope(envelope: unknown, maxEventPayloadBytes: number): EnvelopeInspection {
  const walk: Walk = { path: [], bytes: 0, plain: true, storable: true };
  const violation = visit(envelope, walk, 0);
  if (violation !== null) return { refusal: violation, storableText: false };
  // Anything JSON.stringify writes in its own way (toJSON, undefined members, class instances)
  // is only reachable from in-process callers; it is measured the plain way.
  const bytes = walk.plain ? walk.bytes : serializedEnvelopeBytes(envelope);
  if (bytes > maxEventPayloadBytes) {
    return {
      refusal: {
        code: 'payload_too_large',
        message: `The envelope is ${bytes} bytes as compact JSON; the limit is ${maxEventPayloadBytes}.`,
      },
      storableText: false,
    };
  }
  return { refusal: null, storableText: walk.plain && walk.storable };
}

/**
 * UTF-8 bytes of the envelope re-serialized as compact JSON, unknown fields included (9.1).
 * Measured on the parsed value, so white space and number spelling in the body do not count.
 */
export function serializedEnvelopeBytes(envelope: unknown): number {
  const json = JSON.stringify(envelope);
  // JSON.stringify(undefined) is undefined; a parsed body is never undefined, but stay total.
  return json === undefined ? 0 : utf8ByteLength(json);
}

interface Walk {
  /** The segments down to the value being visited; a refusal's path is joined only when one is found. */
  path: Array<string | number>;
  /** Compact-JSON UTF-8 bytes of what was visited, as JSON.stringify would write it. */
  bytes: number;
  /** False once a value is met that is not plain JSON data: `bytes` no longer counts. */
  plain: boolean;
  /** False once a string or key holds U+0000 or an unpaired surrogate. */
  storable: boolean;
}

function visit(value: unknown, walk: Walk, depth: number): StructuralRefusal | null {
  const path = walk.path;
  if (depth > MAX_DEPTH) {
    return refusal(
      'max_depth_exceeded',
      path,
      `A value is nested ${depth} levels below the envelope; the limit is ${MAX_DEPTH}.`,
    );
  }
  if (typeof value === 'string') {
    if (value.length > MAX_STRING_UNITS) {
      return refusal(
        'max_string_length_exceeded',
        path,
        `A string is ${value.length} UTF-16 units long; the limit is ${MAX_STRING_UNITS}.`,
      );
    }
    walk.bytes += textBytes(value, walk);
    return null;
  }
  if (Array.isArray(value)) {
    if (value.length > MAX_WIDTH) {
      return refusal(
        'max_keys_exceeded',
        path,
        `An array has ${value.length} elements; the limit is ${MAX_WIDTH}.`,
      );
    }
    if (Object.getPrototypeOf(value) !== Array.prototype) walk.plain = false;
    walk.bytes += value.length === 0 ? 2 : value.length + 1; // brackets and commas
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const found = visit(value[i], walk, depth + 1);
      path.pop();
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    // Own keys only: JSON.parse makes `__proto__` an own key, which counts like any other.
    const keys = Object.keys(value);
    if (keys.length > MAX_WIDTH) {
      return refusal(
        'max_keys_exceeded',
        path,
        `An object has ${keys.length} keys; the limit is ${MAX_WIDTH}.`,
      );
    }
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) walk.plain = false;
    walk.bytes += keys.length === 0 ? 2 : keys.length * 2 + 1; // braces, colons and commas
    const record = value as Record<string, unknown>;
    for (const key of keys) {
      walk.bytes += textBytes(key, walk);
      path.push(key);
      const found = visit(record[key], walk, depth + 1);
      path.pop();
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof value === 'number') walk.bytes += Number.isFinite(value) ? (value === 0 ? 1 : String(value).length) : 4;
  else if (typeof value === 'boolean') walk.bytes += value ? 4 : 5;
  else if (value === null) walk.bytes += 4;
  // undefined, functions, symbols and bigints: JSON.stringify leaves them out, writes null or throws.
  else walk.plain = false;
  return null;
}

/** A character other than these takes more than one byte or an escape in compact JSON. */
const NOT_PLAIN_ASCII = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

/**
 * Bytes of a string written by JSON.stringify (quotes and escapes included) and encoded as
 * UTF-8; marks the walk unstorable at U+0000 or an unpaired surrogate (written as `\udxxx`).
 */
function textBytes(text: string, walk: Walk): number {
  if (!NOT_PLAIN_ASCII.test(text)) return text.length + 2;
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      if (unit >= 0x20) bytes += unit === 0x22 || unit === 0x5c ? 2 : 1;
      else {
        // \b \t \n \f \r have short escapes; the other controls are \u00xx.
        bytes += unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d ? 2 : 6;
        if (unit === 0) walk.storable = false;
      }
    } else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1); // NaN past the end
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 6;
        walk.storable = false;
      }
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      bytes += 6;
      walk.storable = false;
    } else bytes += 3;
  }
  return bytes;
}

// Paths use the detail form of 2.6: segments joined by `.`, indices as numbers, root "".
function refusal(code: StructuralRefusalCode, path: Array<string | number>, message: string): StructuralRefusal {
  const joined = path.join('.');
  return { code, message, details: [{ path: joined, message }] };
}
