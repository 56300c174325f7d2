// Fitting an event to the server's limits before it is sent (event protocol 9.1, 5.9), so that
// the server stores it instead of refusing it: field lengths, alias and metadata keys, then the
// envelope's size (the larger payload replaced first, metadata dropped last).
import {
  ALIAS_TYPE_LENGTH,
  ALIAS_VALUE_LENGTH,
  ERROR_FIELD_LENGTHS,
  EVENT_FIELD_LENGTHS,
  MAX_DISPLAYABLE_ALIASES,
  METADATA_KEY_LENGTH,
  setOwn,
} from './shared-rules.ts';
import { PAYLOAD_TOO_LARGE, storableText } from './capture.ts';

export { PAYLOAD_TOO_LARGE };
export const KEY_TOO_LONG = '[KEY_TOO_LONG]';
export const MESSAGE_TRUNCATED = '[TRUNCATED]';
const ELLIPSIS = '\u2026';

/** Code points in `text`, stopping early once past `limit` (most strings are short). */
export function codePointsOver(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let count = 0;
  for (const _ of text) if (++count > limit) return true;
  return false;
}

/** The first `count` code points of `text`. */
function headCodePoints(text: string, count: number): string {
  let out = '';
  let taken = 0;
  for (const char of text) {
    if (taken++ >= count) break;
    out += char;
  }
  return out;
}

/** Cuts to `max` code points, the last being `marker`, without splitting a character; storable (see storableText). */
export function cutWithMarker(text: string, max: number, marker: string): string {
  const storable = storableText(text);
  if (!codePointsOver(storable, max)) return storable;
  return headCodePoints(storable, max - Array.from(marker).length) + marker;
}

/** A label as sent (4.4): a blank one is not sent, a long one becomes 199 code points and `…`. */
export function fitLabel(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  // Judged once storable: a label of U+0000 and spaces is blank then.
  const storable = storableText(label);
  if (storable.trim() === '') return undefined;
  return cutWithMarker(storable, EVENT_FIELD_LENGTHS.journeyLabel.max, ELLIPSIS);
}

/** An error message cut to 4,096 code points, the last ones being `[TRUNCATED]` (5.9). */
export function fitErrorMessage(message: string): string {
  // Checked once storable: a message of only U+0000 is empty then.
  const text = storableText(message);
  return cutWithMarker(text === '' ? 'Error' : text, ERROR_FIELD_LENGTHS.message.max, MESSAGE_TRUNCATED);
}

/** A string field cut to its limit in code points (names, types, codes, stacks). */
export function fitField(text: string, max: number): string {
  return cutWithMarker(text, max, ELLIPSIS);
}

export interface FittedAliases {
  aliases?: Record<string, string>;
  displayableAliases?: string[];
  /** Alias types or values left off for being too long. */
  droppedTypes: string[];
}

/** Aliases the server would refuse (type over 128, value over 512 code points) are left off. */
export function fitAliases(aliases: Record<string, string> | undefined, displayable: readonly string[] | undefined): FittedAliases {
  const droppedTypes: string[] = [];
  let fitted: Record<string, string> | undefined;
  // Host mistakes (a string for the aliases object, one type for the list) are left off.
  if (typeof aliases === 'object' && aliases !== null && !Array.isArray(aliases)) {
    fitted = {};
    for (const type of Object.keys(aliases)) {
      const value = aliases[type];
      if (typeof value !== 'string' || codePointsOver(type, ALIAS_TYPE_LENGTH.max) || codePointsOver(value, ALIAS_VALUE_LENGTH.max)) {
        droppedTypes.push(type);
        continue;
      }
      const storable = storableText(type);
      // A type of only U+0000 is empty once storable, which the server refuses.
      if (storable === '') droppedTypes.push(type);
      else setOwn(fitted, storable, storableText(value, true));
    }
  }
  let list: string[] | undefined;
  if (Array.isArray(displayable)) {
    list = displayable
      .filter((type) => typeof type === 'string' && !codePointsOver(type, ALIAS_TYPE_LENGTH.max))
      .map((type) => storableText(type))
      .filter((type) => type !== '')
      .slice(0, MAX_DISPLAYABLE_ALIASES);
  }
  return {
    ...(fitted !== undefined ? { aliases: fitted } : {}),
    ...(list !== undefined ? { displayableAliases: list } : {}),
    droppedTypes,
  };
}

/**
 * Metadata keys over 128 code points are left off; `[KEY_TOO_LONG]` counts them so the reader
 * knows something was there.
 */
export function fitMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  let dropped = 0;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(metadata)) {
    if (codePointsOver(key, METADATA_KEY_LENGTH.max)) dropped += 1;
    else setOwn(out, key, metadata[key]);
  }
  if (dropped > 0) out[KEY_TOO_LONG] = dropped;
  return out;
}

function utf8Bytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * Brings the envelope under `maxBytes` (9.1): the larger of input and output becomes
 * `[PAYLOAD_TOO_LARGE]`, then the other, then metadata is dropped. Returns the envelope as JSON
 * (what is sent, so it is serialized once); when even that is not enough, the server refuses it
 * and the refusal is counted.
 */
export function fitEnvelopeSize(envelope: { event: Record<string, unknown> }, maxBytes: number): string {
  const json = JSON.stringify(envelope);
  // A UTF-8 byte is at most 3 per UTF-16 unit: most events need no exact count.
  if (json.length * 3 <= maxBytes || Buffer.byteLength(json, 'utf8') <= maxBytes) return json;
  let size = Buffer.byteLength(json, 'utf8');
  const event = envelope.event;
  const payloads = (['input', 'output'] as const)
    .filter((key) => event[key] !== undefined)
    .map((key) => ({ key, bytes: utf8Bytes(event[key]) }))
    .sort((a, b) => b.bytes - a.bytes);
  for (const { key, bytes } of payloads) {
    event[key] = PAYLOAD_TOO_LARGE;
    size -= bytes - utf8Bytes(PAYLOAD_TOO_LARGE);
    if (size <= maxBytes) return JSON.stringify(envelope);
  }
  delete event.metadata;
  return JSON.stringify(envelope);
}
