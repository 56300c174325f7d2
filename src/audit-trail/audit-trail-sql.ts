// One read over the three trails: the spec's audit log, the settings history and (for owners
// and the admin token) the accounts' trail, in one keyset order: created_at, kind, id, newest first.

import type { Queryable } from '../db/pool.ts';
import type { AuditFilters, AuditPosition, RowKind } from './filters.ts';

export interface TrailRow {
  kind: RowKind;
  id: string;
  at: string;
  created_at: Date;
  project_id: string | null;
  project_slug: string | null;
  project_name: string | null;
  action: string;
  subject: string | null;
  details: Record<string, unknown> | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  actor_kind: string | null;
  actor_email: string | null;
  actor_key_prefix: string | null;
  client_address: string | null;
}

export interface TrailScope {
  /** Projects whose rows may be read; null: every project. */
  projectIds: string[] | null;
  /** The accounts' trail belongs to no project: owners and the admin token only. */
  includeAccounts: boolean;
}

const ACTOR = 'actor_kind, actor_email, actor_key_prefix, client_address';

/**
 * One trail's rows after the position, newest first, at most $12. Each trail is read on its own
 * created_at index and cut to a page before the union (the union of whole tables would sort every
 * row for each page); the kind is constant within a trail, so (created_at, id) orders it. The
 * kind is compared bytewise so the order cannot depend on the database's collation.
 */
function trailBranch(kind: string, table: string, columns: string, extra: string): string {
  return `(SELECT '${kind}' COLLATE "C" AS kind, id, created_at, ${columns}, ${ACTOR}
      FROM ${table}
     WHERE ${extra}
       AND ($3::text IS NULL OR $3 = '${kind}')
       AND ($4::text IS NULL OR action = $4)
       AND ($5::text IS NULL OR lower(actor_email) = $5)
       AND ($6::text IS NULL OR actor_kind = $6)
       AND ($7::timestamptz IS NULL OR created_at >= $7)
       AND ($8::timestamptz IS NULL OR created_at < $8)
       AND created_at <= COALESCE($9::timestamptz, 'infinity')
       AND ($9::timestamptz IS NULL OR (created_at, '${kind}' COLLATE "C", id) < ($9::timestamptz, $10::text COLLATE "C", $11::int8))
     ORDER BY created_at DESC, id DESC
     LIMIT $12)`;
}

const TRAILS = [
  trailBranch('audit', 'audit_log', 'project_id, action, NULL::text AS subject, details, NULL::jsonb AS before, NULL::jsonb AS after',
    '($2::uuid[] IS NULL OR project_id = ANY($2::uuid[]))'),
  trailBranch('settings', 'settings_changes', 'project_id, action, subject, NULL::jsonb AS details, before, after',
    '($2::uuid[] IS NULL OR project_id = ANY($2::uuid[]))'),
  // Account rows belong to no project: read only when every project is (owners, the admin token).
  trailBranch('account', 'account_audit_log', 'NULL::uuid AS project_id, action, NULL::text AS subject, details, NULL::jsonb AS before, NULL::jsonb AS after',
    '$1::boolean AND $2::uuid[] IS NULL'),
].join('\n  UNION ALL\n  ');

/** Rows matching the filters after the position, at most `limit`, newest first. */
export async function listTrailRows(
  db: Queryable,
  scope: TrailScope,
  filters: AuditFilters,
  after: AuditPosition | null,
  limit: number,
): Promise<TrailRow[]> {
  const result = await db.query<TrailRow>(
    `SELECT r.kind, r.id::text AS id, r.created_at, r.project_id, p.slug AS project_slug, p.name AS project_name,
            to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
            r.action, r.subject, r.details, r.before, r.after, r.actor_kind, r.actor_email, r.actor_key_prefix, r.client_address
       FROM (${TRAILS}) r
       LEFT JOIN projects p ON p.id = r.project_id
      ORDER BY r.created_at DESC, r.kind DESC, r.id DESC
      LIMIT $12`,
    [
      scope.includeAccounts,
      scope.projectIds,
      filters.kind,
      filters.action,
      filters.actorEmail,
      filters.actorKind,
      filters.since,
      filters.until,
      after?.at ?? null,
      after?.kind ?? null,
      after?.id ?? null,
      limit,
    ],
  );
  return result.rows;
}

/** The projects a person administers (the audit log shows their rows only). */
export async function adminProjectIds(db: Queryable, userId: string): Promise<string[]> {
  const result = await db.query<{ project_id: string }>(
    `SELECT project_id FROM project_members WHERE user_id = $1 AND role = 'admin' ORDER BY project_id`,
    [userId],
  );
  return result.rows.map((row) => row.project_id);
}
