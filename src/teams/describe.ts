// Who a credential signs in, with the role per project, for GET /ui/api/session and GET /v1/me.
import type { Principal, Role } from '../auth/credentials.ts';
import type { Queryable } from '../db/pool.ts';
import { allProjects, findUserById, rolesOf } from './users-sql.ts';

export interface PrincipalDescription {
  signedInAs: 'admin-token' | 'user';
  user: { id: string; email: string; name: string; owner: boolean } | null;
  /** Every project the credential reaches and the role it acts with there. */
  projects: { projectId: string; slug: string; role: Role }[];
}

export async function describePrincipal(db: Queryable, principal: Principal): Promise<PrincipalDescription> {
  if (principal.kind !== 'user') {
    // The admin token (and only it reaches here besides people) holds every role everywhere.
    return { signedInAs: 'admin-token', user: null, projects: (await allProjects(db)).map((p) => ({ ...p, role: 'admin' as const })) };
  }
  const user = await findUserById(db, principal.user.id);
  const projects = principal.user.owner
    ? (await allProjects(db)).map((p) => ({ ...p, role: 'admin' as const }))
    : await rolesOf(db, principal.user.id);
  return {
    signedInAs: 'user',
    user: { id: principal.user.id, email: principal.user.email, name: user?.displayName ?? '', owner: principal.user.owner },
    projects,
  };
}
