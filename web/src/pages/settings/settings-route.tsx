// Which settings page an address shows. Each page is its own file in this folder.
import { useEffect } from 'react';
import type { Project } from '../../api.ts';
import { Link } from '../../router.tsx';
import { UserText } from '../../components/user-text.tsx';
import { MembersPage } from '../members.tsx';
import { PROJECT_SECTIONS, SettingsLayout, SettingsNotFound, settingsPlace, type SettingsPlace } from './settings-shell.tsx';

export function SettingsRoute({ path, projects }: { path: string; params: URLSearchParams; projects: Project[] }) {
  const place = settingsPlace(path, projects);
  if (place === 'unknown' || place === 'unknown-project') return <SettingsNotFound unknownProject={place === 'unknown-project'} />;
  return (
    <SettingsLayout place={place} projects={projects}>
      <SettingsPage place={place} projects={projects} />
    </SettingsLayout>
  );
}

function SettingsPage({ place, projects }: { place: SettingsPlace; projects: Project[] }) {
  if (place.kind === 'projects') return <ProjectList projects={projects} />;
  if (place.kind === 'project' && place.section === 'members') return <MembersPage project={place.project} />;
  return <SettingsNotFound unknownProject={false} />;
}

function ProjectList({ projects }: { projects: Project[] }) {
  useEffect(() => {
    document.title = 'Projects · Settings · jtrace';
  }, []);
  return (
    <>
      <h2>Projects</h2>
      <ul className="project-list">
        {projects.map((project) => (
          <li key={project.id}>
            <Link to={`/settings/projects/${project.id}/${PROJECT_SECTIONS[0].slug}`}>
              <UserText text={project.name} />
            </Link>{' '}
            <span className="muted">{project.slug}</span>
          </li>
        ))}
      </ul>
    </>
  );
}
