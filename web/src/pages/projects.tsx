import { useEffect } from 'react';
import type { Project } from '../api.ts';
import { Command, EmptyState } from '../components/common.tsx';
import { Link } from '../router.tsx';
import { UserText } from '../components/user-text.tsx';

export function ProjectsPage({ projects }: { projects: Project[] }) {
  useEffect(() => {
    document.title = 'Projects · jtrace';
  }, []);
  if (projects.length === 0) {
    return (
      <>
        <h1>Welcome to jtrace</h1>
        <EmptyState title="No project yet">
          <p>See jtrace at work on realistic data: the demo creates a project with a few dozen journeys.</p>
          <Command>npx jtrace demo</Command>
          <p>
            Or create your own project in <Link to="/settings/projects">Settings</Link>, then an API key for a service to send events with; from a shell on the server:
          </p>
          <Command>{'npx jtrace project:create shop "Shop"\nnpx jtrace key:create shop production "checkout service"'}</Command>
          <p>Then reload this page.</p>
        </EmptyState>
      </>
    );
  }
  return (
    <>
      <h1>Choose a project</h1>
      <ul className="project-list">
        {projects.map((project) => (
          <li key={project.id}>
            <Link to={`/projects/${project.id}/journeys`}>
              <UserText text={project.name} />
            </Link>{' '}
            <span className="muted">
              {project.slug} · {project.environments.length === 0 ? 'no environment yet' : project.environments.join(', ')}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}
