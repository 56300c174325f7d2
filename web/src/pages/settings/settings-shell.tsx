// The Settings area under /ui/settings: one navigation for every settings page, each page its
// own address. Project pages live under /settings/projects/:projectId/...; the audit log and
// the instance page are instance-wide.
import type { ReactNode } from 'react';
import type { Project } from '../../api.ts';
import { sessionProject, useAllowedSomewhere, useInstanceAllowed, useSessionInfo, type Action } from '../../roles.tsx';
import { Link, navigate } from '../../router.tsx';
import { NotFound } from '../not-found.tsx';

/** The project pages of Settings, in the order the navigation shows them. */
export const PROJECT_SECTIONS = [
  { slug: 'environments', title: 'Environments', action: 'environments.manage' },
  { slug: 'api-keys', title: 'API keys', action: 'apiKeys.manage' },
  { slug: 'destinations', title: 'Replay destinations', action: 'destinations.manage' },
  { slug: 'members', title: 'Members', action: 'members.manage' },
] as const satisfies readonly { slug: string; title: string; action: Action }[];

export type ProjectSection = (typeof PROJECT_SECTIONS)[number]['slug'];

/** A settings page: its address below /settings, parsed once. */
export type SettingsPlace =
  | { kind: 'projects' }
  | { kind: 'project'; project: Project; section: ProjectSection; rest: string }
  | { kind: 'audit-log' }
  | { kind: 'instance' };

export function settingsPlace(path: string, projects: Project[]): SettingsPlace | 'unknown' | 'unknown-project' {
  if (path === '/settings' || path === '/settings/' || path === '/settings/projects') return { kind: 'projects' };
  if (path === '/settings/audit-log') return { kind: 'audit-log' };
  if (path === '/settings/instance') return { kind: 'instance' };
  const match = /^\/settings\/projects\/([^/]+)\/([a-z-]+)(\/.*)?$/.exec(path);
  if (!match) return 'unknown';
  const project = projects.find((p) => p.id === match[1]);
  if (!project) return 'unknown-project';
  const section = PROJECT_SECTIONS.find((s) => s.slug === match[2]);
  if (!section) return 'unknown';
  return { kind: 'project', project, section: section.slug, rest: match[3] ?? '' };
}

/** The navigation beside every settings page; links a role cannot use are not shown. */
export function SettingsLayout({ place, projects, children }: { place: SettingsPlace; projects: Project[]; children: ReactNode }) {
  const instance = useInstanceAllowed('instance.read');
  const auditLog = useAllowedSomewhere('auditLog.read');
  const current = place.kind === 'project' ? place.project : null;
  return (
    <div className="settings">
      <nav aria-label="Settings" className="settings-nav">
        <h1 className="settings-title">Settings</h1>
        <ul>
          <li>
            <Link to="/settings/projects" aria-current={place.kind === 'projects' ? 'page' : undefined}>
              Projects
            </Link>
          </li>
          {current ? <ProjectLinks project={current} place={place} /> : null}
          {auditLog ? (
            <li>
              <Link to="/settings/audit-log" aria-current={place.kind === 'audit-log' ? 'page' : undefined}>
                Audit log
              </Link>
            </li>
          ) : null}
          {instance ? (
            <li>
              <Link to="/settings/instance" aria-current={place.kind === 'instance' ? 'page' : undefined}>
                Instance
              </Link>
            </li>
          ) : null}
        </ul>
        {projects.length > 1 && current ? (
          <label className="settings-project">
            Project
            <select value={current.id} onChange={(event) => navigate(`/settings/projects/${event.target.value}/${place.kind === 'project' ? place.section : 'environments'}`)}>
              {projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </nav>
      <div className="settings-page">{children}</div>
    </div>
  );
}

/** The project's settings pages its role allows (none: the project's name alone is not shown). */
export function useProjectSections(projectId: string) {
  const actions = sessionProject(useSessionInfo(), projectId)?.actions ?? [];
  return PROJECT_SECTIONS.filter((section) => actions.includes(section.action));
}

function ProjectLinks({ project, place }: { project: Project; place: SettingsPlace }) {
  const sections = useProjectSections(project.id);
  if (sections.length === 0) return null;
  return (
    <li>
      <span className="settings-project-name">{project.name}</span>
      <ul>
        {sections.map((section) => (
          <li key={section.slug}>
            <Link
              to={`/settings/projects/${project.id}/${section.slug}`}
              aria-current={place.kind === 'project' && place.section === section.slug ? 'page' : undefined}
            >
              {section.title}
            </Link>
          </li>
        ))}
      </ul>
    </li>
  );
}

export function SettingsNotFound({ unknownProject }: { unknownProject: boolean }) {
  return unknownProject ? (
    <NotFound title="Project not found" reason="This project does not exist, or you hold no role in it." />
  ) : (
    <NotFound title="Page not found" reason="There is no settings page at this address." />
  );
}
