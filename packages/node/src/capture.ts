// Turns any host value into JSON the server accepts (event protocol 9.1), in one walk: cycles,
// Dates, BigInt, Map, Set, Error and typed arrays become plain data, strings are cut with the
// contract's marker, width is bounded; a payload too deep or holding a value that cannot be read
// becomes the contract's marker (5.9) as a whole. The host's value is only read, never changed.
import { MAX_DEPTH, MAX_STRING_UNITS, MAX_WIDTH, setOwn } from './shared-rules.ts';

export const CIRCULAR = '[CIRCULAR]';
/**
 * A payload holding a value whose reading threw (a getter, a `toJSON`, a Proxy trap, a
 * projection): the whole payload, as the contract's cases say, since a payload with a hole in it
 * would read as complete.
 */
export const UNCAPTURABLE = '[UNCAPTURABLE]';

/** Levels a value of the event may use: payload roots sit at level 2 of the envelope (9.1). */
export const ROOT_LEVEL = 2;

/** What a payload over its value budget or deeper than the envelope allows becomes: it could not be sent whole. */
export const PAYLOAD_TOO_LARGE = '[PAYLOAD_TOO_LARGE]';

/**
 * Values (containers and leaves) one capture copies at most. An object shared by many parents is
 * copied once per path, as JSON would write it: ten levels of `{left: n, right: n}` are 2,048
 * copies, thirty levels a billion. Every value takes at least 2 bytes of JSON, so a payload of
 * more values than half the largest envelope cannot be sent whole: the walk stops there.
 */
export const DEFAULT_MAX_VALUES = Math.ceil(262_144 / 2);

/**
 * The server stores a string in the clear only without U+0000 or an unpaired surrogate (event
 * protocol 2.7 step 6) and refuses the whole event otherwise: an unpaired surrogate becomes U+FFFD
 * and U+0000 is removed (cases sdk/lone-surrogate and sdk/nul-byte), so the step is kept.
 * `nulAllowed` for the values it stores encrypted (entity id, alias values).
 */
export function storableText(text: string, nulAllowed = false): string {
  const wellFormed = (text as unknown as WellFormedString).isWellFormed();
  if (wellFormed && (nulAllowed || text.indexOf('\u0000') === -1)) return text;
  const fixed = wellFormed ? text : (text as unknown as WellFormedString).toWellFormed();
  return nulAllowed ? fixed : fixed.replaceAll('\u0000', '');
}

/** ES2024 string methods (Node 20 has them; the compile target's lib may not). */
interface WellFormedString extends String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

function truncationMarker(removed: number): string {
  return `[TRUNCATED: ${removed} characters removed]`;
}

/**
 * Cuts a string to at most `max` UTF-16 units in total, marker included (5.9): the marker says
 * how many units were removed, a CRLF precedes it when the string holds CRLF (so the server still
 * reads a cut header block), and a surrogate pair is never split.
 */
export function truncateString(text: string, max = MAX_STRING_UNITS): string {
  if (text.length <= max) return text;
  const separator = text.includes('\r\n') ? '\r\n' : '';
  let keep = max - separator.length - truncationMarker(text.length).length;
  // The marker's digit count depends on `keep`; one more pass settles it.
  keep = max - separator.length - truncationMarker(text.length - keep).length;
  const code = text.charCodeAt(keep - 1);
  if (code >= 0xd800 && code <= 0xdbff) keep -= 1;
  return text.slice(0, keep) + separator + truncationMarker(text.length - keep);
}

function isSharedArrayBuffer(value: object): value is SharedArrayBuffer {
  return typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer;
}

function describeBinary(value: ArrayBufferView | ArrayBuffer | SharedArrayBuffer): string {
  const name = value.constructor?.name ?? 'Binary';
  return `[${name}: ${value.byteLength} bytes]`;
}

/** A JSON-safe copy of `value` at envelope level `level`; undefined means "leave out". */
export function toWireValue(value: unknown, level = ROOT_LEVEL, maxValues = DEFAULT_MAX_VALUES): unknown {
  return captureRoot(value, level, newWalk(null, maxValues));
}

/**
 * The same copy, also telling whether `flagKey` held for any key the copy has: the caller learns
 * in this walk whether a costlier check of the copy's keys is needed at all.
 */
export function toWireValueFlaggingKeys(
  value: unknown,
  level: number,
  flagKey: (key: string) => boolean,
  maxValues = DEFAULT_MAX_VALUES,
): { value: unknown; flagged: boolean } {
  const state = newWalk(flagKey, maxValues);
  const captured = captureRoot(value, level, state);
  return { value: captured, flagged: state.flagged };
}

function captureRoot(value: unknown, level: number, walk: Walk): unknown {
  const captured = capture(value, level, walk);
  if (walk.unreadable) return UNCAPTURABLE;
  return walk.valuesLeft < 0 || walk.tooDeep ? PAYLOAD_TOO_LARGE : captured;
}

function newWalk(flagKey: ((key: string) => boolean) | null, maxValues: number): Walk {
  return { ancestors: [], flagKey, flagged: false, valuesLeft: maxValues, tooDeep: false, unreadable: false };
}

interface Walk {
  // The objects being copied, outermost first: a cycle is an object met again among them. A small
  // array beats a Set here, as depth is bounded by MAX_DEPTH and most payloads are a few levels deep.
  readonly ancestors: object[];
  readonly flagKey: ((key: string) => boolean) | null;
  flagged: boolean;
  /** Values the copy may still take; below zero the walk has stopped (see DEFAULT_MAX_VALUES). */
  valuesLeft: number;
  /** A container sat below the depth the server accepts (9.1): the payload cannot be sent whole. */
  tooDeep: boolean;
  /** A value could not be read: the payload is sent as UNCAPTURABLE. */
  unreadable: boolean;
}

/** Notes an unreadable value and stops the walk: the payload is replaced whatever else it holds. */
function unreadableValue(walk: Walk): undefined {
  walk.unreadable = true;
  walk.valuesLeft = -1;
  return undefined;
}

/** Sets a captured member, noting whether its key is flagged. */
function put(walk: Walk, out: Record<string, unknown>, key: string, value: unknown): void {
  if (walk.flagKey !== null && !walk.flagged && walk.flagKey(key)) walk.flagged = true;
  setOwn(out, key, value);
}

function capture(value: unknown, level: number, walk: Walk): unknown {
  if (--walk.valuesLeft < 0) return undefined;
  const ancestors = walk.ancestors;
  switch (typeof value) {
    case 'string':
      return storableText(value.length > MAX_STRING_UNITS ? truncateString(value) : value);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'bigint':
      // The contract reads numbers as doubles; a string keeps every digit (2.5).
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.includes(object)) return CIRCULAR;
  let plain: boolean;
  try {
    // A plain object or array (most of a payload) is none of the special kinds below, whose
    // prototypes it does not have: it skips their checks.
    const proto = Object.getPrototypeOf(object) as unknown;
    plain = (proto === Object.prototype || proto === Array.prototype || proto === null) && !ArrayBuffer.isView(object);
    if (!plain) {
      if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
      if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer || isSharedArrayBuffer(object)) return describeBinary(object);
      // Boxed primitives, as JSON writes them.
      if (object instanceof Number || object instanceof String || object instanceof Boolean) return capture(object.valueOf(), level, walk);
    }
  } catch {
    // A Proxy whose traps throw.
    return unreadableValue(walk);
  }
  if (level >= MAX_DEPTH) {
    walk.tooDeep = true;
    walk.valuesLeft = -1;
    return undefined;
  }
  ancestors.push(object);
  try {
    if (!plain) {
      if (object instanceof Error) return captureError(object, level, walk);
      if (object instanceof Map) return captureEntries(object.entries(), level, walk);
      if (object instanceof Set) return captureArray(object, level, walk);
    }
    if (Array.isArray(object)) return captureArray(object, level, walk);
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      const replaced: unknown = toJSON.call(object);
      // JSON writes what toJSON gave without asking it again: an object that gives itself is
      // written as its own members.
      if (replaced === object) return captureObject(object as Record<string, unknown>, level, walk);
      ancestors.pop();
      try {
        return capture(replaced, level, walk);
      } finally {
        ancestors.push(object);
      }
    }
    return captureObject(object as Record<string, unknown>, level, walk);
  } catch {
    return unreadableValue(walk);
  } finally {
    ancestors.pop();
  }
}

/** A plain object's own enumerable keys; a throwing getter stops the walk (UNCAPTURABLE). */
function captureObject(object: Record<string, unknown>, level: number, walk: Walk): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let width = 0;
  for (const key of Object.keys(object)) {
    if (width >= MAX_WIDTH || walk.valuesLeft < 0) break;
    let item: unknown;
    try {
      item = object[key];
    } catch {
      return unreadableValue(walk) ?? out;
    }
    const captured = capture(item, level + 1, walk);
    if (captured === undefined) continue;
    put(walk, out, storableText(key), captured);
    width += 1;
  }
  return out;
}

function captureEntries(entries: Iterable<[unknown, unknown]>, level: number, walk: Walk): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let width = 0;
  for (const [key, item] of entries) {
    // Members past the server's width are left off rather than refusing the event.
    if (width >= MAX_WIDTH || walk.valuesLeft < 0) break;
    const captured = capture(item, level + 1, walk);
    if (captured === undefined) continue;
    put(walk, out, storableText(typeof key === 'string' ? key : String(key)), captured);
    width += 1;
  }
  return out;
}

function captureArray(items: Iterable<unknown>, level: number, walk: Walk): unknown[] {
  const out: unknown[] = [];
  for (const item of items) {
    if (out.length >= MAX_WIDTH || walk.valuesLeft < 0) break;
    const captured = capture(item, level + 1, walk);
    out.push(captured === undefined ? null : captured);
  }
  return out;
}

/** An Error found inside a payload: its name, message and own fields, never its stack. */
function captureError(error: Error, level: number, walk: Walk): Record<string, unknown> {
  const out = captureObject(error as unknown as Record<string, unknown>, level, walk);
  delete out.stack;
  const head: Record<string, unknown> = {};
  put(walk, head, 'name', capture(error.name, level + 1, walk));
  put(walk, head, 'message', capture(error.message, level + 1, walk));
  return { ...head, ...out };
}
