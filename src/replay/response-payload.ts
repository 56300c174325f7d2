// Turns a destination's response body into what a run stores: the JSON it sent (or its text as
// a JSON string), with every destination header value scrubbed wherever it appears (keys and
// strings included) and made storable as jsonb.

import { MAX_RESPONSE_DEPTH } from './limits.ts';
import { scrubText } from './header-policy.ts';

// jsonb refuses U+0000 and unpaired surrogates: a destination may send either.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

class TooDeep extends Error {}

function storableString(text: string, secrets: readonly string[]): string {
  return scrubText(text, secrets).replace(UNSTORABLE, '\ufffd');
}

/** Copies a parsed JSON value, scrubbing strings and keys; throws TooDeep past the depth cap. */
function copyScrubbed(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return storableString(value, secrets);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_RESPONSE_DEPTH) throw new TooDeep();
  if (Array.isArray(value)) return value.map((item) => copyScrubbed(item, secrets, depth + 1));
  // fromEntries defines own properties, so a `__proto__` key stays an ordinary key.
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      storableString(key, secrets),
      copyScrubbed(item, secrets, depth + 1),
    ]),
  );
}

/**
 * The stored response: null for an empty body, the parsed JSON when the body is JSON, else
 * the text as one JSON string (also when the JSON nests deeper than the cap).
 */
export function storedResponsePayload(body: Buffer, secrets: readonly string[]): unknown {
  if (body.length === 0) return null;
  // Not fatal: a destination's bytes are shown as best we can, never refused.
  const text = new TextDecoder('utf-8').decode(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return storableString(text, secrets);
  }
  try {
    return copyScrubbed(parsed, secrets, 0);
  } catch (error) {
    if (error instanceof TooDeep) return storableString(text, secrets);
    throw error;
  }
}
