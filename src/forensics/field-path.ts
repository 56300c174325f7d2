// The `path` of "follow a field": the plain form of the redaction rule grammar (event protocol
// 5.5) — keys joined by `.`, `name[*]` for every element of an array, `[*]` first for a root
// array — plus explicit indices (`items[2].sku`), so that any read-diff row path can be followed.
// Keys compare exactly (following data, not matching secret names); `*` and `**` are refused.

import { REDACTED } from '../protocol/redaction/redact.ts';
import { MAX_FIELD_PATH_CODE_POINTS, MAX_FIELD_PATH_SEGMENTS } from './limits.ts';

export { REDACTED };

export type PathSegment = { key: string } | { index: number } | { every: true };

/** The segments of a path, or a message saying what is wrong with it (never echoing it). */
export function parseFieldPath(text: string): PathSegment[] | string {
  if (text === '') return 'path is required.';
  if ([...text].length > MAX_FIELD_PATH_CODE_POINTS) return `path is longer than ${MAX_FIELD_PATH_CODE_POINTS} characters.`;
  const segments: PathSegment[] = [];
  const parts = text.split('.');
  for (const [position, part] of parts.entries()) {
    const match = /^([^[\]]*)((?:\[(?:\*|\d{1,4})\])*)$/.exec(part);
    if (match === null) return 'path must be keys joined by ".", each optionally followed by [*] or [index].';
    const key = match[1]!;
    const brackets = match[2]!;
    if (key === '' && (position > 0 || brackets === '')) return 'path has an empty key.';
    if (key === '*' || key === '**') return 'path must name keys: wildcards other than [*] are not followed.';
    if (key !== '') segments.push({ key });
    for (const bracket of brackets.match(/\[[^\]]*\]/g) ?? []) {
      const inner = bracket.slice(1, -1);
      segments.push(inner === '*' ? { every: true } : { index: Number(inner) });
    }
  }
  if (segments.length > MAX_FIELD_PATH_SEGMENTS) return `path has more than ${MAX_FIELD_PATH_SEGMENTS} segments.`;
  return segments;
}

/**
 * What a stored payload holds at a path. `redacted`: the value, or a value on the way to it, was
 * replaced by `[REDACTED]`, so whether and what it holds is unknown. A path through `[*]` selects
 * every match: present with the array of matched values when there is at least one.
 */
export type Selection = { state: 'present'; value: unknown } | { state: 'missing' } | { state: 'redacted' };

export function selectPath(root: unknown, segments: readonly PathSegment[]): Selection {
  const many = segments.some((segment) => 'every' in segment);
  let current: unknown[] = [root];
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const value of current) {
      if (value === REDACTED) return { state: 'redacted' };
      if ('key' in segment) {
        if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, segment.key)) {
          next.push((value as Record<string, unknown>)[segment.key]);
        }
      } else if (Array.isArray(value)) {
        if ('every' in segment) next.push(...value);
        else if (segment.index < value.length) next.push(value[segment.index]);
      }
    }
    current = next;
  }
  if (current.some((value) => value === REDACTED)) return { state: 'redacted' };
  if (current.length === 0) return { state: 'missing' };
  return { state: 'present', value: many ? current : current[0] };
}
