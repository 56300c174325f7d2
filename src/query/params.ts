// Value rules of the read routes' query parameters (interface spec 4). The shared parser in
// http/query.ts has already refused unknown, repeated and NUL-holding parameters; what is left
// here is what each value must look like. Messages name the parameter, never its value: q may
// be an entity id or an alias value.

import { isWellFormedText } from '../protocol/identifiers.ts';
import { errors } from '../http/errors.ts';
import { ceilMicros, compareInstants, parseInstantParam, parseLimit, type QueryValues } from '../http/query.ts';
import { normalizeIdentifier } from '../protocol/identifiers.ts';
import { decodeJourneyCursor, decodeTimelineCursor, type JourneyPosition, type TimelinePosition } from './cursor.ts';

const PAGE = {
  limit: 'Whole number >= 1; 25 when omitted or empty; above 100 is read as 100.',
  cursor: 'The nextCursor of the previous page.',
} as const;
const WINDOW = {
  until: 'Instant with a time zone after since: journeys whose lastEventAt is before it.',
  environment: 'Environment name, applied on top of the caller\'s scope.',
} as const;

/** Query parameters of each read route with their meaning (the route contracts declare them). */
export const SEARCH_QUERY = {
  q: 'Required: the value to resolve (entity id, alias, journey, trace, span, message or correlation id).',
  since: 'Instant with a time zone: journeys whose lastEventAt is at or after it.',
  ...WINDOW,
  ...PAGE,
  match: 'exact (default): the value as normalized; loose: also an e-mail address ignoring case and a phone number in any spelling.',
} as const;
export const LIST_QUERY = {
  since: 'Required instant with a time zone: journeys whose lastEventAt is at or after it.',
  ...WINDOW,
  status: 'active, completed or failed.',
  service: 'Exact service name of an event of the journey.',
  entityType: 'Exact entity type, at most 128 characters.',
  q: '2 to 200 characters contained in the label or a displayable alias value, ignoring case.',
  finding: 'lost, changed, duplicated, failed, overdue or skipped_step: journeys with such a finding (docs/findings.md).',
  path: 'With finding: only findings of this field path (lost, changed) or missing step (skipped_step), exact, at most 1,024 characters.',
  ...PAGE,
} as const;
export const TIMELINE_QUERY = PAGE;

/** How far ahead of the API clock `since` may be (interface spec, section 8). */
export const MAX_FUTURE_SINCE_MS = 60_000;
/** entityType filter, in code points after trimming (section 8). */
export const MAX_ENTITY_TYPE_CODE_POINTS = 128;
/** Journey-list text filter, in code points after trimming (section 8). */
export const MIN_TEXT_FILTER_CODE_POINTS = 2;
export const MAX_TEXT_FILTER_CODE_POINTS = 200;

const JOURNEY_STATUSES = ['active', 'completed', 'failed'] as const;
export type JourneyStatus = (typeof JOURNEY_STATUSES)[number];

/** Window on lastEventAt as whole microseconds: since inclusive, until exclusive. */
export interface Window {
  sinceUs: bigint | null;
  untilUs: bigint | null;
}

/** What search and the journey list share: window, environment name, page. */
export interface JourneyPageParams extends Window {
  /** An environment name on top of the caller's scope; null = every readable one. */
  environment: string | null;
  limit: number;
  after: JourneyPosition | null;
}

export interface SearchParams extends JourneyPageParams {
  /** The value as search tokens cover it: trimmed, a UUID lower-cased (event protocol 4.2). */
  value: string;
  /** match=loose: the value's e-mail or phone normal forms match too. */
  loose: boolean;
}

export interface ListParams extends JourneyPageParams {
  status: JourneyStatus | null;
  service: string | null;
  entityType: string | null;
  /** Trimmed text filter, as sent (case is folded by the database). */
  text: string | null;
  finding: { kind: FindingKindFilter; path: string | null } | null;
}

const FINDING_KINDS = ['lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step'] as const;
export type FindingKindFilter = (typeof FINDING_KINDS)[number];
/** The path filter, in code points: the longest field path forensics follows. */
export const MAX_FINDING_PATH_CODE_POINTS = 1_024;

function parseFinding(kind: string | undefined, path: string | undefined): ListParams['finding'] {
  const wanted = kind === undefined || kind === '' ? null : FINDING_KINDS.find((candidate) => candidate === kind);
  if (wanted === undefined) throw errors.invalidQuery('finding', `finding must be one of ${FINDING_KINDS.join(', ')}.`);
  const onPath = path === undefined || path === '' ? null : path;
  if (onPath !== null && wanted === null) throw errors.invalidQuery('path', 'path needs finding.');
  if (onPath !== null && [...onPath].length > MAX_FINDING_PATH_CODE_POINTS) {
    throw errors.invalidQuery('path', `path is longer than ${MAX_FINDING_PATH_CODE_POINTS} characters.`);
  }
  return wanted === null ? null : { kind: wanted, path: onPath };
}

export interface TimelineParams {
  limit: number;
  after: TimelinePosition | null;
}

function parseWindow(query: QueryValues<'since' | 'until'>, nowMs: number, sinceRequired: boolean): Window {
  const since = parseInstantParam('since', query.since);
  const until = parseInstantParam('until', query.until);
  if (since === null && sinceRequired) throw errors.invalidQuery('since', 'since is required.');
  if (since !== null && ceilMicros(since) > BigInt(nowMs + MAX_FUTURE_SINCE_MS) * 1000n) {
    throw errors.invalidQuery('since', 'since is more than 60 seconds ahead of the server clock.');
  }
  if (since !== null && until !== null && compareInstants(until, since) <= 0) {
    throw errors.invalidQuery('until', 'until must be after since.');
  }
  return { sinceUs: since && ceilMicros(since), untilUs: until && ceilMicros(until) };
}

function pageParams(query: QueryValues<keyof typeof SEARCH_QUERY>, nowMs: number, sinceRequired: boolean): JourneyPageParams {
  const window = parseWindow(query, nowMs, sinceRequired);
  const limit = parseLimit(query.limit);
  const after = decodeJourneyCursor(query.cursor);
  const environment = query.environment === undefined || query.environment === '' ? null : query.environment;
  return { ...window, environment, limit, after };
}

export function parseSearchParams(query: QueryValues<keyof typeof SEARCH_QUERY>, nowMs: number): SearchParams {
  const value = normalizeIdentifier(query.q ?? '');
  if (value === '') throw errors.invalidQuery('q', 'q is required and must not be empty.');
  // A URL cannot carry an unpaired surrogate (bad_url); this keeps the token function total.
  if (!isWellFormedText(value)) throw errors.invalidQuery('q', 'q is not valid text.');
  return { ...pageParams(query, nowMs, false), value, loose: parseMatch(query.match) };
}

/** match=loose opts into the normal forms of e-mail addresses and phone numbers; exact is the default. */
export function parseMatch(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'exact') return false;
  if (value === 'loose') return true;
  throw errors.invalidQuery('match', 'match must be exact or loose.');
}

function parseStatus(value: string | undefined): JourneyStatus | null {
  if (value === undefined || value === '') return null;
  const status = JOURNEY_STATUSES.find((candidate) => candidate === value);
  if (status === undefined) throw errors.invalidQuery('status', 'status must be active, completed or failed.');
  return status;
}

function parseEntityType(value: string | undefined): string | null {
  const trimmed = (value ?? '').trim();
  if (trimmed === '') return null;
  if ([...trimmed].length > MAX_ENTITY_TYPE_CODE_POINTS) {
    throw errors.invalidQuery('entityType', `entityType is longer than ${MAX_ENTITY_TYPE_CODE_POINTS} characters.`);
  }
  return trimmed;
}

function parseText(value: string | undefined): string | null {
  const trimmed = (value ?? '').trim();
  if (trimmed === '') return null;
  const length = [...trimmed].length;
  if (length < MIN_TEXT_FILTER_CODE_POINTS || length > MAX_TEXT_FILTER_CODE_POINTS) {
    throw errors.invalidQuery('q', `q must be ${MIN_TEXT_FILTER_CODE_POINTS} to ${MAX_TEXT_FILTER_CODE_POINTS} characters long.`);
  }
  return trimmed;
}

export function parseListParams(query: QueryValues<keyof typeof LIST_QUERY>, nowMs: number): ListParams {
  const status = parseStatus(query.status);
  const entityType = parseEntityType(query.entityType);
  const text = parseText(query.q);
  // An empty service is no filter, like every other optional filter of the list.
  const service = query.service === undefined || query.service === '' ? null : query.service;
  const finding = parseFinding(query.finding, query.path);
  return { ...pageParams(query, nowMs, true), status, service, entityType, text, finding };
}

export function parseTimelineParams(query: QueryValues<keyof typeof TIMELINE_QUERY>): TimelineParams {
  return { limit: parseLimit(query.limit), after: decodeTimelineCursor(query.cursor) };
}
