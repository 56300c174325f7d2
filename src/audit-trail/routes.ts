import type { FastifyInstance } from 'fastify';
import { requireAdmin, type AuthContext } from '../auth/credentials.ts';
import { auditEntrySchema } from '../http/answer-schemas/audit.ts';
import { dataOf, pageOf } from '../http/answers.ts';
import type { StaleReads } from '../http/read-routing.ts';
import { parseLimit } from '../http/query.ts';
import { defineRoute } from '../http/route-contract.ts';
import { readTrailForExport, readTrailPage, trailScope, MAX_EXPORT_ROWS } from './audit-trail.ts';
import { csvHeader, csvLine } from './csv.ts';
import { AUDIT_QUERY, decodeAuditCursor, parseAuditFilters } from './filters.ts';

export interface AuditTrailRouteDeps {
  auth: AuthContext;
  /** The audit log tolerates a little staleness: a replica in sync may answer it. */
  staleReads?: StaleReads;
}

/** The audit log and its CSV export: project admins (their projects), owners and the admin token. */
export function registerAuditTrailRoutes(app: FastifyInstance, deps: AuditTrailRouteDeps): void {
  const errors = ['unauthorized', 'forbidden', 'too_many_attempts', 'project_not_found', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'] as const;
  const base = { tag: 'audit', credential: (request: Parameters<typeof requireAdmin>[0]) => requireAdmin(request, deps.auth), security: ['adminToken'] } as const;

  defineRoute(app, {
    method: 'GET',
    url: '/v1/audit-log',
    contract: {
      ...base,
      summary: 'List audit rows, settings changes and (owners) account rows, newest first',
      query: { ...AUDIT_QUERY, limit: 'Rows per page, 1 to 100 (default 25).', cursor: 'nextCursor of the previous page.' },
      answers: { 200: { description: 'One page of the audit log.', schema: dataOf(pageOf(auditEntrySchema)) } },
      errors: [...errors, 'invalid_cursor'],
    },
    handler: async (request, _reply, { credential, query }) => {
      const filters = parseAuditFilters(query);
      const limit = parseLimit(query.limit);
      const after = decodeAuditCursor(query.cursor);
      const scope = await trailScope(request, deps.auth, credential, filters);
      return { data: await readTrailPage(deps.staleReads?.(request) ?? deps.auth.db, scope, filters, after, limit) };
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/audit-log.csv',
    contract: {
      ...base,
      summary: `Export the filtered audit log as CSV (at most ${MAX_EXPORT_ROWS} rows, newest first)`,
      query: AUDIT_QUERY,
      answers: { 200: { description: `text/csv; the header x-jtrace-truncated is true when more than ${MAX_EXPORT_ROWS} rows matched.` } },
      errors,
    },
    handler: async (request, reply, { credential, query }) => {
      const filters = parseAuditFilters(query);
      const scope = await trailScope(request, deps.auth, credential, filters);
      const { entries, truncated } = await readTrailForExport(deps.staleReads?.(request) ?? deps.auth.db, scope, filters);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="jtrace-audit-log.csv"')
        .header('x-jtrace-truncated', String(truncated))
        .send(csvHeader() + entries.map(csvLine).join(''));
    },
  });
}
