// Who a credential signs in, with the role per project, for GET /ui/api/session and GET /v1/me.
import type { Principal, Role } from '../auth/credentials.ts';
import type { Queryable } from '../db/pool.ts';
import { instanceActions, projectActions, type Action } from '../auth/policy.ts';
import { adminsOf, allProjects, findUserById, rolesOf } from './users-sql.ts';

export interface PrincipalDescription {
  signedInAs: 'admin-token' | 'user';
  user: { id: string; email: string; name: string; owner: boolean } | null;
  /** Instance-wide actions (owner routes) the credential may take. */
  actions: Action[];
  /**
   * Every project the credential reaches, the role it acts with there, the actions that role
   * allows (src/auth/policy.ts) and, below admin, whom to ask: the project's admins.
   */
  projects: { projectId: string; slug: string; role: Role; actions: Action[]; admins: { email: string; name: string }[] }[];
}

async function withActions(db: Queryable, projects: { projectId: string; slug: string; role: Role }[]): Promise<PrincipalDescription['projects']> {
  const below = projects.filter((p) => p.role !== 'admin').map((p) => p.projectId);
  const admins = await adminsOf(db, below);
  return projects.map((p) => ({ ...p, actions: projectActions(p.role), admins: admins.get(p.projectId) ?? [] }));
}

export async function describePrincipal(db: Queryable, principal: Principal): Promise<PrincipalDescription> {
  if (principal.kind !== 'user') {
    // The admin token (and only it reaches here besides people) holds every role everywhere.
    const projects = (await allProjects(db)).map((p) => ({ ...p, role: 'admin' as const }));
    return { signedInAs: 'admin-token', user: null, actions: instanceActions(true), projects: await withActions(db, projects) };
  }
  const user = await findUserById(db, principal.user.id);
  const projects = principal.user.owner
    ? (await allProjects(db)).map((p) => ({ ...p, role: 'admin' as const }))
    : await rolesOf(db, principal.user.id);
  return {
    signedInAs: 'user',
    user: { id: principal.user.id, email: principal.user.email, name: user?.displayName ?? '', owner: principal.user.owner },
    actions: instanceActions(principal.user.owner),
    projects: await withActions(db, projects),
  };
}
