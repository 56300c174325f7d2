// Which settings page an address shows. Each page is its own file in this folder.
import type { Project } from '../../api.ts';
import { SettingsMembersPage } from './members.tsx';
import { ApiKeysPage } from './api-keys.tsx';
import { DestinationsPage } from './destinations.tsx';
import { AuditLogPage } from './audit-log.tsx';
import { EnvironmentsPage } from './environments-page.tsx';
import { InstancePage } from './instance-page.tsx';
import { ProjectsSettingsPage } from './projects-page.tsx';
import { PROJECT_SECTIONS, SettingsLayout, SettingsNotFound, settingsPlace, type SettingsPlace } from './settings-shell.tsx';
import { RoleNeeded } from '../../components/role-needed.tsx';
import { useAllowedSomewhere, useInstanceAllowed, useSessionInfo } from '../../roles.tsx';

export function SettingsRoute({ path, projects, reloadProjects }: { path: string; params: URLSearchParams; projects: Project[]; reloadProjects: () => void }) {
  const place = settingsPlace(path, projects);
  if (place === 'unknown' || place === 'unknown-project') return <SettingsNotFound unknownProject={place === 'unknown-project'} />;
  return (
    <SettingsLayout place={place} projects={projects}>
      <SettingsPage place={place} projects={projects} reloadProjects={reloadProjects} />
    </SettingsLayout>
  );
}

function SettingsPage({ place, projects, reloadProjects }: { place: SettingsPlace; projects: Project[]; reloadProjects: () => void }) {
  // A page reached by its address with a role that does not allow it: say which role, send nothing.
  const session = useSessionInfo();
  const auditLog = useAllowedSomewhere('auditLog.read');
  const instance = useInstanceAllowed('instance.read');
  if (place.kind === 'project') {
    const section = PROJECT_SECTIONS.find((s) => s.slug === place.section)!;
    const actions = session?.projects.find((p) => p.projectId === place.project.id)?.actions ?? [];
    if (!actions.includes(section.action)) return <RoleNeeded title={section.title} action={section.action} projectId={place.project.id} level={2} />;
  }
  if (place.kind === 'audit-log' && !auditLog) return <RoleNeeded title="Audit log" action="auditLog.read" level={2} />;
  if (place.kind === 'instance' && !instance) return <RoleNeeded title="Instance" action="instance.read" level={2} />;
  if (place.kind === 'projects') return <ProjectsSettingsPage projects={projects} reloadProjects={reloadProjects} />;
  if (place.kind === 'project' && place.section === 'environments') return <EnvironmentsPage project={place.project} rest={place.rest} reloadProjects={reloadProjects} />;
  if (place.kind === 'instance') return <InstancePage />;
  if (place.kind === 'project' && place.section === 'members') return <SettingsMembersPage project={place.project} />;
  if (place.kind === 'project' && place.section === 'api-keys') return <ApiKeysPage project={place.project} />;
  if (place.kind === 'project' && place.section === 'destinations') return <DestinationsPage project={place.project} />;
  if (place.kind === 'audit-log') return <AuditLogPage projects={projects} />;
  return <SettingsNotFound unknownProject={false} />;
}
