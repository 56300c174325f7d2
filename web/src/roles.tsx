// Who is signed in and their role per project (GET /ui/api/session). The interface hides what a
// role cannot do; the server refuses it anyway (docs/roles.md).
import { createContext, useContext } from 'react';
import type { SessionInfo } from './api.ts';

export type Role = SessionInfo['projects'][number]['role'];
const ORDER: Role[] = ['viewer', 'operator', 'admin'];

export const SessionContext = createContext<SessionInfo | null>(null);

export function useSessionInfo(): SessionInfo | null {
  return useContext(SessionContext);
}

/** Whether the signed-in principal holds at least `needed` in the project. */
export function useCan(projectId: string, needed: Role): boolean {
  const session = useContext(SessionContext);
  const role = session?.projects.find((p) => p.projectId === projectId)?.role;
  return role !== undefined && ORDER.indexOf(role) >= ORDER.indexOf(needed);
}

/** Owners and the admin token manage accounts. */
export function useIsOwner(): boolean {
  const session = useContext(SessionContext);
  return session !== null && (session.signedInAs === 'admin-token' || session.user?.owner === true);
}
