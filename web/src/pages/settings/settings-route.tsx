// Which settings page an address shows. Each page is its own file in this folder.
import type { Project } from '../../api.ts';
import { SettingsMembersPage } from './members.tsx';
import { ApiKeysPage } from './api-keys.tsx';
import { EnvironmentsPage } from './environments-page.tsx';
import { InstancePage } from './instance-page.tsx';
import { ProjectsSettingsPage } from './projects-page.tsx';
import { SettingsLayout, SettingsNotFound, settingsPlace, type SettingsPlace } from './settings-shell.tsx';

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
  if (place.kind === 'projects') return <ProjectsSettingsPage projects={projects} reloadProjects={reloadProjects} />;
  if (place.kind === 'project' && place.section === 'environments') return <EnvironmentsPage project={place.project} rest={place.rest} reloadProjects={reloadProjects} />;
  if (place.kind === 'instance') return <InstancePage />;
  if (place.kind === 'project' && place.section === 'members') return <SettingsMembersPage project={place.project} />;
  if (place.kind === 'project' && place.section === 'api-keys') return <ApiKeysPage project={place.project} />;
  return <SettingsNotFound unknownProject={false} />;
}
