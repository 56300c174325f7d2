import type { Principal } from '../auth/credentials.ts';
import type { Queryable } from '../db/pool.ts';

/** The projects a principal may see: every one, or a person's memberships. */
export async function visibleProjectIds(db: Queryable, principal: Principal): Promise<'all' | Set<string>> {
  if (principal.kind !== 'user' || principal.user.owner) return 'all';
  const result = await db.query<{ project_id: string }>('SELECT project_id FROM project_members WHERE user_id = $1', [principal.user.id]);
  return new Set(result.rows.map((row) => row.project_id));
}
