// Storability (event-protocol 2.7 step 6, 12.5). PostgreSQL text and jsonb cannot hold U+0000,
// and an unpaired surrogate has no UTF-8 form: either would fail the insert as a 500 or be
// silently altered. Refusing them up front makes it a clean 400 unstorable_payload.
//
// findUnstorableEventValue is the one place that decides it for an event: every string and key
// of the event is checked for unpaired surrogates (refused everywhere, 12.5: besides storage, a
// value reaches encryption, search tokens and the content hash, and none has a UTF-8 form for
// it), and what is stored in the clear, after capture and redaction, for U+0000 as well (a
// dropped or redacted value is not); entity.id and alias values are stored encrypted and may
// hold U+0000.

import type { ValidEvent } from './envelope-types.ts';
import { hasNul, isWellFormedText } from './identifiers.ts';

/** True when the string holds a high surrogate not followed by a low one, or a lone low one. */
export function hasUnpairedSurrogate(text: string): boolean {
  return !isWellFormedText(text);
}

/** True when the string may be stored in a text or jsonb column. */
export function isStorableText(text: string): boolean {
  return !hasNul(text) && isWellFormedText(text);
}

/** The path of the first string or key (document order, a key before its value) that `accepts` refuses. */
function findRefusedText(value: unknown, basePath: string, accepts: (text: string) => boolean): string | null {
  if (typeof value === 'string') return accepts(value) ? null : basePath;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findRefusedText(value[i], joinPath(basePath, String(i)), accepts);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const path = joinPath(basePath, key);
      if (!accepts(key)) return path;
      const found = findRefusedText(record[key], path, accepts);
      if (found !== null) return found;
    }
  }
  return null;
}

/**
 * The path of the first string or key (document order, a key before its value) holding U+0000
 * or an unpaired surrogate, or null when the whole value is storable. Paths use the detail
 * form of 2.6 under `basePath` (segments joined by `.`, indices as numbers); a bad root string
 * returns `basePath` itself, "" by default.
 */
export function findUnstorable(value: unknown, basePath = ''): string | null {
  return findRefusedText(value, basePath, isStorableText);
}

/** The path of the first string or key holding an unpaired surrogate (NUL allowed), or null. */
export function findUnencodable(value: unknown, basePath = ''): string | null {
  return findRefusedText(value, basePath, isWellFormedText);
}

/** What capture keeps of an event's open parts, as it is stored (null: absent or dropped). */
export interface StoredClearValues {
  input: unknown;
  output: unknown;
  error: unknown;
  runtime: unknown;
  deployment: unknown;
  metadata: unknown;
}

/**
 * 2.7 step 6 for one validated event: the path of the first value that cannot be stored,
 * encrypted, tokenized or hashed, or null. Fields in envelope order; in each, an unpaired
 * surrogate anywhere in what was sent, then U+0000 in what is stored in the clear.
 */
export function findUnstorableEventValue(event: ValidEvent, stored: StoredClearValues): string | null {
  const fields: Array<[string, unknown, 'clear' | 'encrypted' | 'captured']> = [
    ['event.id', event.id, 'clear'],
    ['event.journeyId', event.journeyId, 'clear'],
    ['event.service', event.service, 'clear'],
    ['event.entity.type', event.entity.type, 'clear'],
    ['event.entity.id', event.entity.id, 'encrypted'],
    ['event.name', event.name, 'clear'],
    // Alias types are stored in the clear, their values encrypted.
    ['event.aliases', event.aliases ? Object.keys(event.aliases) : undefined, 'clear'],
    ['event.aliases', event.aliases, 'encrypted'],
    ['event.displayableAliases', event.displayableAliases, 'clear'],
    ['event.journeyLabel', event.journeyLabel, 'clear'],
    ['event.parentEventId', event.parentEventId, 'clear'],
    ['event.traceId', event.traceId, 'clear'],
    ['event.spanId', event.spanId, 'clear'],
    ['event.messageId', event.messageId, 'clear'],
    ['event.correlationId', event.correlationId, 'clear'],
    ['event.input', event.input, 'captured'],
    ['event.output', event.output, 'captured'],
    ['event.error', event.error, 'captured'],
    ['event.runtime', event.runtime, 'captured'],
    ['event.deployment', event.deployment, 'captured'],
    ['event.metadata', event.metadata, 'captured'],
  ];
  const captured: Record<string, unknown> = {
    'event.input': stored.input,
    'event.output': stored.output,
    'event.error': stored.error,
    'event.runtime': stored.runtime,
    'event.deployment': stored.deployment,
    'event.metadata': stored.metadata,
  };
  for (const [path, value, kind] of fields) {
    if (value === undefined || value === null) continue;
    if (kind === 'clear') {
      // Alias types are listed as an array; their path is the alias's, not an index.
      const found = path === 'event.aliases' ? findAliasType(value as string[]) : findUnstorable(value, path);
      if (found !== null) return found;
      continue;
    }
    const unencodable = findUnencodable(value, path);
    if (unencodable !== null) return unencodable;
    if (kind === 'captured') {
      const kept = captured[path];
      const found = kept === undefined || kept === null ? null : findUnstorable(kept, path);
      if (found !== null) return found;
    }
  }
  return null;
}

function findAliasType(types: string[]): string | null {
  const bad = types.find((type) => !isStorableText(type));
  return bad === undefined ? null : `event.aliases.${bad}`;
}

function joinPath(parent: string, segment: string): string {
  return parent === '' ? segment : `${parent}.${segment}`;
}
