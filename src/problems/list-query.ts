// The problems list's query string (docs/problems.md): filters, sort, page and cursor, each
// refused with the spec's codes before any query runs.

import { decodeTaggedCursor, encodeTaggedCursor } from '../http/cursor-codec.ts';
import { errors } from '../http/errors.ts';
import { ceilMicros, parseInstantParam, parseLimit } from '../http/query.ts';
import { PROBLEM_SORTS, PROBLEM_STATUSES, type ProblemFilters, type ProblemRow, type ProblemSort, type ProblemStatus } from './problems-sql.ts';

export const FINDING_KINDS = ['lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step'] as const;
/** What the list shows when no status is named: ignored and expected problems are left out. */
export const DEFAULT_STATUSES: readonly ProblemStatus[] = ['open', 'regressed', 'resolved'];
/** Longest text filter (path, service, environment, release), characters. */
export const MAX_FILTER_LENGTH = 1024;
/** Longest cursor we could have written, characters. */
const MAX_CURSOR_LENGTH = 512;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const LIST_PARAMETERS = {
  status: `Comma-separated statuses (${PROBLEM_STATUSES.join(', ')}) or all; ${DEFAULT_STATUSES.join(',')} when omitted.`,
  kind: 'One finding kind.',
  path: 'An exact field path.',
  service: "The service of the problem's step or of its from step.",
  environment: 'An environment name.',
  release: 'Problems seen in this release (deployment version, else commit).',
  since: 'Instant with a time zone: problems last seen at or after it.',
  sort: 'journeys (default), lastSeen or firstSeen; descending.',
  limit: 'Whole number >= 1; 25 when omitted; above 100 read as 100.',
  cursor: 'nextCursor of the previous page.',
} as const;
type Query = Partial<Record<keyof typeof LIST_PARAMETERS, string>>;

function text(query: Query, name: 'path' | 'service' | 'environment' | 'release'): string | null {
  const value = query[name];
  if (value === undefined || value === '') return null;
  if ([...value].length > MAX_FILTER_LENGTH) throw errors.invalidQuery(name, `${name} must be at most ${MAX_FILTER_LENGTH} characters.`);
  return value;
}

export function parseStatuses(value: string | undefined): readonly ProblemStatus[] {
  if (value === undefined || value === '') return DEFAULT_STATUSES;
  if (value === 'all') return PROBLEM_STATUSES;
  const named = value.split(',');
  if (!named.every((status) => (PROBLEM_STATUSES as readonly string[]).includes(status))) {
    throw errors.invalidQuery('status', `status must be all or a comma-separated list of ${PROBLEM_STATUSES.join(', ')}.`);
  }
  return named as ProblemStatus[];
}

export function parseFilters(query: Query): ProblemFilters {
  const kind = query.kind === undefined || query.kind === '' ? null : query.kind;
  if (kind !== null && !(FINDING_KINDS as readonly string[]).includes(kind)) throw errors.invalidQuery('kind', `kind must be one of ${FINDING_KINDS.join(', ')}.`);
  const since = parseInstantParam('since', query.since);
  return {
    statuses: parseStatuses(query.status),
    kind,
    path: text(query, 'path'),
    service: text(query, 'service'),
    environment: text(query, 'environment'),
    release: text(query, 'release'),
    since: since === null ? null : new Date(Number(ceilMicros(since) / 1000n)),
  };
}

export function parseSort(value: string | undefined): ProblemSort {
  if (value === undefined || value === '') return 'journeys';
  if (!(PROBLEM_SORTS as readonly string[]).includes(value)) throw errors.invalidQuery('sort', `sort must be one of ${PROBLEM_SORTS.join(', ')}.`);
  return value as ProblemSort;
}

export function parsePage(query: Query) {
  const sort = parseSort(query.sort);
  const limit = parseLimit(query.limit);
  if (query.cursor === undefined || query.cursor === '') return { sort, limit, after: null };
  const record = decodeTaggedCursor(query.cursor, 'problems', ['k', 's', 'v', 'id'], MAX_CURSOR_LENGTH);
  const { s, v, id } = record;
  // A cursor holds the sort it was made for: the key's type depends on it.
  if (s !== sort || typeof v !== 'string' || typeof id !== 'string' || !UUID.test(id)) throw errors.invalidCursor();
  const fits = sort === 'journeys' ? /^\d{1,10}$/.test(v) && Number(v) <= 2_147_483_647 : /^-?\d{1,16}$/.test(v);
  if (!fits) throw errors.invalidCursor();
  return { sort, limit, after: { key: v, id } };
}

export function nextCursor(sort: ProblemSort, last: ProblemRow): string {
  return encodeTaggedCursor({ k: 'problems', s: sort, v: last.sort_key, id: last.id });
}
