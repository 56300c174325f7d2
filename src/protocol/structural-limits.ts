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

/**
 * null when the envelope is within every limit, else the first refusal.
 * `maxEventPayloadBytes` is the configured MAX_EVENT_PAYLOAD_BYTES.
 */
export function checkStructuralLimits(
  envelope: unknown,
  maxEventPayloadBytes: number,
): StructuralRefusal | null {
  const violation = visit(envelope, [], 0);
  if (violation !== null) return violation;
  const bytes = serializedEnvelopeBytes(envelope);
  if (bytes > maxEventPayloadBytes) {
    return {
      code: 'payload_too_large',
      message: `The envelope is ${bytes} bytes as compact JSON; the limit is ${maxEventPayloadBytes}.`,
    };
  }
  return null;
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

/** `path` holds the segments down to `value`; a refusal's path is joined only when one is found. */
function visit(value: unknown, path: Array<string | number>, depth: number): StructuralRefusal | null {
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
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const found = visit(value[i], path, depth + 1);
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
    const record = value as Record<string, unknown>;
    for (const key of keys) {
      path.push(key);
      const found = visit(record[key], path, depth + 1);
      path.pop();
      if (found !== null) return found;
    }
  }
  return null;
}

// Paths use the detail form of 2.6: segments joined by `.`, indices as numbers, root "".
function refusal(code: StructuralRefusalCode, path: Array<string | number>, message: string): StructuralRefusal {
  const joined = path.join('.');
  return { code, message, details: [{ path: joined, message }] };
}
