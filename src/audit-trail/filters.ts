// The audit log's query (GET /v1/audit-log and its CSV export): filters and the keyset cursor.
// A cursor holds a position only, never a filter (interface spec 4, "Pagination").

import { decodeTaggedCursor, encodeTaggedCursor } from '../http/cursor-codec.ts';
import { errors } from '../http/errors.ts';
import { parseInstantParam, compareInstants, type QueryInstant, type QueryValues } from '../http/query.ts';
import { isUuid } from '../protocol/identifiers.ts';

/** Where a row comes from: the spec's audit log, the settings history, or the accounts' trail. */
export const ROW_KINDS = ['account', 'audit', 'settings'] as const;
export type RowKind = (typeof ROW_KINDS)[number];

/** Actor kinds a row may name (`none`: a refused sign-in, which has no actor yet). */
export const ACTOR_KINDS = ['user', 'admin-token', 'api-key', 'cli', 'none'] as const;

/** Characters of an actor or action filter: e-mail addresses and action names are far shorter. */
export const MAX_FILTER_LENGTH = 320;

export const AUDIT_QUERY = {
  actor: 'An e-mail address (case-insensitive) or an actor kind: user, admin-token, api-key, cli, none.',
  action: 'An action name, such as api_key.created or replay_destination.updated.',
  kind: 'audit, settings or account.',
  project: 'A project id; otherwise the X-Service-Project-Id header, else every project the caller administers.',
  since: 'Rows at or after this instant.',
  until: 'Rows before this instant.',
} as const;

export interface AuditFilters {
  actorEmail: string | null;
  actorKind: string | null;
  action: string | null;
  kind: RowKind | null;
  /** The project named in the query, before it is checked against the caller's roles. */
  project: string | null;
  since: string | null;
  until: string | null;
}

function instantText(instant: QueryInstant | null): string | null {
  if (instant === null) return null;
  // PostgreSQL reads the text exactly to the microsecond; digits beyond it round there.
  return `${new Date(instant.ms).toISOString().slice(0, -1)}${instant.subMs}Z`;
}

function bounded(name: string, value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  if ([...value].length > MAX_FILTER_LENGTH) throw errors.invalidQuery(name, `${name} must be at most ${MAX_FILTER_LENGTH} characters.`);
  return value.trim();
}

export function parseAuditFilters(query: QueryValues<keyof typeof AUDIT_QUERY>): AuditFilters {
  const actor = bounded('actor', query.actor);
  let actorEmail: string | null = null;
  let actorKind: string | null = null;
  if (actor !== null) {
    if (actor.includes('@')) actorEmail = actor.toLowerCase();
    else if ((ACTOR_KINDS as readonly string[]).includes(actor)) actorKind = actor;
    else throw errors.invalidQuery('actor', `actor must be an e-mail address or one of ${ACTOR_KINDS.join(', ')}.`);
  }
  const kind = bounded('kind', query.kind);
  if (kind !== null && !(ROW_KINDS as readonly string[]).includes(kind)) {
    throw errors.invalidQuery('kind', `kind must be one of ${ROW_KINDS.join(', ')}.`);
  }
  const project = bounded('project', query.project);
  if (project !== null && !isUuid(project)) throw errors.invalidQuery('project', 'project must be a project id (a uuid).');
  const since = parseInstantParam('since', query.since);
  const until = parseInstantParam('until', query.until);
  if (since !== null && until !== null && compareInstants(until, since) <= 0) {
    throw errors.invalidQuery('until', 'until must be after since.');
  }
  return {
    actorEmail,
    actorKind,
    action: bounded('action', query.action),
    kind: kind as RowKind | null,
    project: project?.toLowerCase() ?? null,
    since: instantText(since),
    until: instantText(until),
  };
}

/** Position in the order created_at desc, kind desc, id desc. */
export interface AuditPosition {
  /** created_at as PostgreSQL wrote it: UTC with six fraction digits. */
  at: string;
  kind: RowKind;
  id: string;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[1-9][0-9]{0,18}$/;
const MAX_CURSOR_LENGTH = 256;

export function encodeAuditCursor(position: AuditPosition): string {
  return encodeTaggedCursor({ k: 'audit', t: position.at, s: position.kind, id: position.id });
}

/** null for an omitted or empty cursor; invalid_cursor for anything this route did not write. */
export function decodeAuditCursor(text: string | undefined): AuditPosition | null {
  if (text === undefined || text === '') return null;
  const record = decodeTaggedCursor(text, 'audit', ['id', 'k', 's', 't'], MAX_CURSOR_LENGTH);
  const { t, s, id } = record;
  if (typeof t !== 'string' || !AT.test(t) || Number.isNaN(Date.parse(t))) throw errors.invalidCursor();
  if (typeof s !== 'string' || !(ROW_KINDS as readonly string[]).includes(s)) throw errors.invalidCursor();
  if (typeof id !== 'string' || !ID.test(id) || BigInt(id) > 9_223_372_036_854_775_807n) throw errors.invalidCursor();
  return { at: t, kind: s as RowKind, id };
}
