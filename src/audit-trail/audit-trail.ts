// The audit log as the interface and the API read it: who may read which rows, one keyset page,
// and the bounded export. Reading only: rows are written where their actions happen.

import type { FastifyRequest } from 'fastify';
import { authorizeProjectInPath, forbidden, type AuthContext, type Principal } from '../auth/credentials.ts';
import type { Queryable } from '../db/pool.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { adminProjectIds, listTrailRows, type TrailRow, type TrailScope } from './audit-trail-sql.ts';
import { encodeAuditCursor, type AuditFilters, type AuditPosition, type RowKind } from './filters.ts';

/** Rows in one CSV export: a year of a busy project fits; narrow the time range beyond it. */
export const MAX_EXPORT_ROWS = 10_000;
/** Rows read per statement while exporting. */
const EXPORT_BATCH = 1_000;

export interface AuditEntry {
  kind: RowKind;
  id: string;
  time: string;
  action: string;
  project: { id: string; slug: string; name: string } | null;
  actor: { kind: string | null; email: string | null; keyPrefix: string | null; clientAddress: string | null };
  subject: string | null;
  details: Record<string, unknown> | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

function entryOf(row: TrailRow): AuditEntry {
  return {
    kind: row.kind,
    id: row.id,
    time: formatTimestamp(row.created_at.getTime()),
    action: row.action,
    project: row.project_id === null ? null : { id: row.project_id, slug: row.project_slug ?? '', name: row.project_name ?? '' },
    actor: { kind: row.actor_kind, email: row.actor_email, keyPrefix: row.actor_key_prefix, clientAddress: row.client_address },
    subject: row.subject,
    details: row.details,
    before: row.before,
    after: row.after,
  };
}

const positionOf = (row: TrailRow): AuditPosition => ({ at: row.at, kind: row.kind, id: row.id });

/**
 * Which rows the caller reads (docs/roles.md): a project named in the query (or by the
 * X-Service-Project-Id header) answers as every project route does (404 without a role, 403
 * below admin); otherwise a person reads the projects they administer (403 when none), and
 * owners and the admin token read everything, the accounts' trail included.
 */
export async function trailScope(request: FastifyRequest, auth: AuthContext, principal: Principal, filters: AuditFilters): Promise<TrailScope> {
  const header = request.headers['x-service-project-id'];
  const headerProject = typeof header === 'string' && header.trim() !== '' ? header.trim() : null;
  const named = filters.project ?? headerProject;
  if (named !== null) return { projectIds: [await authorizeProjectInPath(request, auth, named)], includeAccounts: false };
  if (principal.kind === 'user' && !principal.user.owner) {
    const ids = await adminProjectIds(auth.db, principal.user.id);
    if (ids.length === 0) throw forbidden();
    return { projectIds: ids, includeAccounts: false };
  }
  return { projectIds: null, includeAccounts: true };
}

export async function readTrailPage(
  db: Queryable,
  scope: TrailScope,
  filters: AuditFilters,
  after: AuditPosition | null,
  limit: number,
): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  const rows = await listTrailRows(db, scope, filters, after, limit + 1);
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { items: shown.map(entryOf), nextCursor: rows.length > limit && last ? encodeAuditCursor(positionOf(last)) : null };
}

/** Every matching row up to MAX_EXPORT_ROWS, newest first; `truncated` when more matched. */
export async function readTrailForExport(db: Queryable, scope: TrailScope, filters: AuditFilters): Promise<{ entries: AuditEntry[]; truncated: boolean }> {
  const entries: AuditEntry[] = [];
  let after: AuditPosition | null = null;
  for (;;) {
    const want = Math.min(EXPORT_BATCH, MAX_EXPORT_ROWS + 1 - entries.length);
    const rows = await listTrailRows(db, scope, filters, after, want);
    entries.push(...rows.map(entryOf));
    if (entries.length > MAX_EXPORT_ROWS) return { entries: entries.slice(0, MAX_EXPORT_ROWS), truncated: true };
    if (rows.length < want) return { entries, truncated: false };
    after = positionOf(rows.at(-1)!);
  }
}
