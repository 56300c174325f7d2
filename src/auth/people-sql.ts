// The reads credential checks make about people: an active user, their role in a project, the
// projects they see. Writes live in src/teams.
import type { Queryable } from '../db/pool.ts';
import type { Role } from './policy.ts';

export interface UserPrincipal {
  id: string;
  email: string;
  owner: boolean;
}

export async function findActiveUser(db: Queryable, userId: string): Promise<UserPrincipal | null> {
  const result = await db.query<UserPrincipal>(
    `SELECT id, email, owner FROM users WHERE id = $1 AND state = 'active'`,
    [userId],
  );
  return result.rows[0] ?? null;
}

export async function memberRole(db: Queryable, projectId: string, userId: string): Promise<Role | null> {
  const result = await db.query<{ role: Role }>('SELECT role FROM project_members WHERE project_id = $1 AND user_id = $2', [
    projectId,
    userId,
  ]);
  return result.rows[0]?.role ?? null;
}

/** The projects a person has a role in, with the role, by project id. */
export async function memberProjects(db: Queryable, userId: string): Promise<Map<string, Role>> {
  const result = await db.query<{ project_id: string; role: Role }>(
    'SELECT project_id, role FROM project_members WHERE user_id = $1',
    [userId],
  );
  return new Map(result.rows.map((row) => [row.project_id, row.role]));
}
