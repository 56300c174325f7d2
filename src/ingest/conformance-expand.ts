// Expansion of conformance cases (event-protocol 11.3), shared by the validation tests and the
// HTTP conformance runner. A case stays unchanged on disk; each run expands a fresh copy.

import { randomBytes } from 'node:crypto';
import { setOwn } from '../protocol/own-keys.ts';

/** The placeholder replaced in every string and key by the run token. */
export const RUN_PLACEHOLDER = '{{run}}';

/** Comparison matchers (11.4): single-key `$` objects that are not builders, kept as they are. */
export const MATCHER_TAGS: readonly string[] = ['$matches', '$absent'];

/** Host tags that only sdk cases may use (11.3); a wire case holding one is malformed. */
export const SDK_HOST_TAGS: readonly string[] = [
  '$date', '$bigint', '$number', '$undefined', '$utf16', '$map', '$set', '$error', '$buffer',
  '$throwingGetter', '$projection', '$throwingProjection', '$cycle', '$ref',
];

/** The only keys a case file may have (11.2); any other makes it malformed. */
export const CASE_KEYS: readonly string[] = [
  'id', 'title', 'source', 'layer', 'languages', 'setup', 'send', 'calls', 'recorder', 'expect',
];

/** A malformed case: unknown builder or host tag, bad builder argument. */
export class CaseExpansionError extends Error {
  override name = 'CaseExpansionError';
}

export interface ExpandOptions {
  /** The run token that replaces `{{run}}`. */
  run: string;
  /**
   * sdk runners turn host tags into host values here (`expand` expands nested data). Without
   * it, as for wire cases, a host tag is an error.
   */
  hostTag?: (tag: string, argument: unknown, expand: (value: unknown) => unknown) => unknown;
}

/** A short ASCII alphanumeric token, unique per run of a case (11.3). */
export function newRunToken(): string {
  return randomBytes(6).toString('hex');
}

/** Keys of a case document outside 11.2, in document order (empty when well formed). */
export function findUnknownCaseKeys(caseDocument: object): string[] {
  return Object.keys(caseDocument).filter((key) => !CASE_KEYS.includes(key));
}

/** A copy of the case with `setup`, `send` and `expect` expanded; other keys as they are. */
export function expandCase<T extends object>(caseDocument: T, options: ExpandOptions): T {
  const out = { ...caseDocument } as Record<string, unknown>;
  for (const key of ['setup', 'send', 'expect']) {
    if (Object.hasOwn(out, key)) out[key] = expandValue(out[key], options);
  }
  return out as T;
}

/** Expand builders and `{{run}}` in one value (11.3). Objects are fresh; `__proto__` stays an own key. */
export function expandValue(value: unknown, options: ExpandOptions): unknown {
  const expand = (inner: unknown): unknown => expandValue(inner, options);
  if (typeof value === 'string') return replaceRun(value, options.run);
  if (Array.isArray(value)) return value.map(expand);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const tag = keys[0];
  if (keys.length === 1 && tag !== undefined && tag.startsWith('$')) {
    const argument = record[tag];
    if (MATCHER_TAGS.includes(tag)) return literal(record, options.run);
    switch (tag) {
      case '$string':
        return buildString(argument, options);
      case '$array': {
        const { value: item, count } = builderArgument(tag, argument, ['value', 'count']);
        return Array.from({ length: countOf(tag, count) }, () => expand(item));
      }
      case '$nest': {
        const { depth, leaf } = builderArgument(tag, argument, ['depth', 'leaf']);
        let nested = expand(leaf);
        for (let i = countOf(tag, depth); i > 0; i--) nested = { n: nested };
        return nested;
      }
      case '$concat':
        if (!Array.isArray(argument)) throw new CaseExpansionError('$concat takes an array of pieces');
        return argument.map((piece) => pieceText(expand(piece))).join('');
      case '$literal':
        return literal(argument, options.run);
    }
    if (SDK_HOST_TAGS.includes(tag)) {
      if (options.hostTag === undefined) throw new CaseExpansionError(`${tag} is an sdk-only host tag`);
      return options.hostTag(tag, argument, expand);
    }
    throw new CaseExpansionError(`Unknown tag ${tag}`);
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) setOwn(out, replaceRun(key, options.run), expand(record[key]));
  return out;
}

function buildString(argument: unknown, options: ExpandOptions): string {
  const { char, count } = builderArgument('$string', argument, ['char', 'count']);
  const text = expandValue(char, options);
  if (typeof text !== 'string') throw new CaseExpansionError('$string.char must be a string');
  return text.repeat(countOf('$string', count));
}

/** `$literal` and matchers: data as it is, only `{{run}}` replaced in strings and keys. */
function literal(value: unknown, run: string): unknown {
  if (typeof value === 'string') return replaceRun(value, run);
  if (Array.isArray(value)) return value.map((item) => literal(item, run));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) setOwn(out, replaceRun(key, run), literal(record[key], run));
  return out;
}

/** A builder's argument object with exactly the given keys, so a typo is an error, not data. */
function builderArgument(tag: string, argument: unknown, keys: readonly string[]): Record<string, unknown> {
  const ok =
    typeof argument === 'object' &&
    argument !== null &&
    !Array.isArray(argument) &&
    Object.keys(argument).length === keys.length &&
    keys.every((key) => Object.hasOwn(argument, key));
  if (!ok) throw new CaseExpansionError(`${tag} takes an object with exactly ${keys.join(', ')}`);
  return argument as Record<string, unknown>;
}

function countOf(tag: string, count: unknown): number {
  if (typeof count === 'number' && Number.isSafeInteger(count) && count >= 0) return count;
  throw new CaseExpansionError(`${tag}: a count must be a whole number ≥ 0`);
}

function pieceText(piece: unknown): string {
  if (typeof piece === 'string') return piece;
  if (typeof piece === 'number' || typeof piece === 'boolean') return String(piece);
  throw new CaseExpansionError('$concat pieces must expand to strings');
}

function replaceRun(text: string, run: string): string {
  return text.includes(RUN_PLACEHOLDER) ? text.replaceAll(RUN_PLACEHOLDER, run) : text;
}

