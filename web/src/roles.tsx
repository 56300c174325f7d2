// Who is signed in and what they may do (GET /ui/api/session). The server lists, per project,
// the actions the person's role allows, computed from the same rules it enforces
// (src/auth/policy.ts); the interface shows a link or a button only when its action is listed.
import { createContext, useContext } from 'react';
import type { SessionInfo } from './api.ts';
import { actionNeeds, type Action } from '../../src/auth/policy.ts';

export type { Action };
export type Role = SessionInfo['projects'][number]['role'];

export const SessionContext = createContext<SessionInfo | null>(null);

export function useSessionInfo(): SessionInfo | null {
  return useContext(SessionContext);
}

export function sessionProject(session: SessionInfo | null, projectId: string): SessionInfo['projects'][number] | undefined {
  return session?.projects.find((p) => p.projectId === projectId);
}

/** Whether the signed-in principal may take the action in the project. */
export function useAllowed(projectId: string, action: Action): boolean {
  return sessionProject(useContext(SessionContext), projectId)?.actions.includes(action) === true;
}

/** Whether the action is allowed in at least one project (the audit log reads every project administered). */
export function useAllowedSomewhere(action: Action): boolean {
  const session = useContext(SessionContext);
  return session?.projects.some((p) => p.actions.includes(action)) === true || session?.actions.includes(action) === true;
}

/** Whether the instance-wide action (owners and the admin token) is allowed. */
export function useInstanceAllowed(action: Action): boolean {
  return useContext(SessionContext)?.actions.includes(action) === true;
}

/** Owners and the admin token manage accounts and projects. */
export function useIsOwner(): boolean {
  return useInstanceAllowed('users.manage');
}

/** The role an action needs in a project ('owner' for the instance's own), from the server's rules. */
export function roleNeeded(action: Action): Role | 'owner' {
  return actionNeeds(action);
}
