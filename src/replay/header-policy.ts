// Which headers a destination may configure, what a replay sends, and what is stored of it.
// Destination header values are secrets (tokens, signatures): they are stored encrypted, sent,
// and never stored or returned in the clear, not even when the destination echoes them back.

import { isBuiltInSecretName } from '../protocol/redaction/secret-names.ts';
import {
  MAX_DESTINATION_HEADERS,
  MAX_HEADER_NAME_LENGTH,
  MAX_HEADER_VALUE_LENGTH,
  MIN_SCRUBBED_VALUE_LENGTH,
  REDACTED,
} from './limits.ts';

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Field value characters HTTP clients accept: no CR, LF, NUL or other controls; Latin-1 at most. */
const FIELD_VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

/**
 * Names a destination may not set: the three the replay sets itself (section 4) and the
 * framing and connection headers the HTTP client owns (a wrong one would corrupt the request).
 */
const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'content-type',
  'user-agent',
  'x-service-replay',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
]);

export type DestinationHeaders = Record<string, string>;

export interface HeaderProblem {
  path: string;
  message: string;
}

/** Validates a create body's `headers` object; problems carry their own detail paths. */
export function checkDestinationHeaders(
  value: unknown,
): { ok: true; value: DestinationHeaders } | { ok: false; problems: HeaderProblem[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: [{ path: 'headers', message: 'must be an object of header name to string value' }] };
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_DESTINATION_HEADERS) {
    return { ok: false, problems: [{ path: 'headers', message: `must hold at most ${MAX_DESTINATION_HEADERS} headers` }] };
  }
  const problems: HeaderProblem[] = [];
  const seen = new Set<string>();
  for (const [name, headerValue] of entries) {
    // The name is not quoted in the path when it is not a token: it may hold anything.
    const path = TOKEN.test(name) && name.length <= MAX_HEADER_NAME_LENGTH ? `headers.${name}` : 'headers';
    const lower = name.toLowerCase();
    if (!TOKEN.test(name) || name.length > MAX_HEADER_NAME_LENGTH) {
      problems.push({ path, message: `a header name must be an HTTP token of at most ${MAX_HEADER_NAME_LENGTH} characters` });
    } else if (RESERVED_NAMES.has(lower)) {
      problems.push({ path, message: `${lower} is set by the replay itself or by the HTTP client` });
    } else if (seen.has(lower)) {
      problems.push({ path, message: 'the header is given more than once (names are case-insensitive)' });
    }
    seen.add(lower);
    if (typeof headerValue !== 'string') {
      problems.push({ path, message: 'a header value must be a string' });
    } else if (headerValue.length > MAX_HEADER_VALUE_LENGTH) {
      problems.push({ path, message: `a header value must be at most ${MAX_HEADER_VALUE_LENGTH} characters` });
    } else if (!FIELD_VALUE.test(headerValue)) {
      problems.push({ path, message: 'a header value must not hold CR, LF, NUL, other control characters or characters above U+00FF' });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: Object.fromEntries(entries) as DestinationHeaders };
}

/** The headers jtrace adds to every replay. */
export function replayOwnHeaders(version: string, runId: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': `jtrace-replay/${version}`,
    'x-service-replay': runId,
  };
}

/**
 * What is stored as requestHeaders: every header sent, by name, with `[REDACTED]` for each
 * destination header and for any built-in secret name. Works from names alone, so a run
 * blocked before its headers could be decrypted still shows what would have been sent.
 */
export function storedRequestHeaders(destinationHeaderNames: readonly string[], own: Record<string, string>): Record<string, string> {
  const stored: Record<string, string> = {};
  for (const name of destinationHeaderNames) stored[name] = REDACTED;
  for (const [name, value] of Object.entries(own)) stored[name] = isBuiltInSecretName(name) ? REDACTED : value;
  return stored;
}

/** Destination header values long enough to scrub, longest first so overlaps go whole. */
export function scrubbableValues(headers: DestinationHeaders): string[] {
  const values = new Set(Object.values(headers).filter((value) => value.length >= MIN_SCRUBBED_VALUE_LENGTH));
  return [...values].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of each value inside the text. */
export function scrubText(text: string, values: readonly string[]): string {
  let result = text;
  for (const value of values) if (result.includes(value)) result = result.split(value).join(REDACTED);
  return result;
}
