// Settings · Projects: every project the person reaches; owners create and rename them. A change
// is recorded in the settings history (project.created, project.renamed).
import { useEffect, useState, type FormEvent } from 'react';
import { request, type NewProjectRequest, type Project } from '../../api.ts';
import { ErrorMessage } from '../../components/common.tsx';
import { UserText } from '../../components/user-text.tsx';
import { useIsOwner } from '../../roles.tsx';
import { Link } from '../../router.tsx';
import { useProjectSections } from './settings-shell.tsx';
import { useAction } from '../../lib/use-action.ts';

export function ProjectsSettingsPage({ projects, reloadProjects }: { projects: Project[]; reloadProjects: () => void }) {
  const owner = useIsOwner();
  useEffect(() => {
    document.title = 'Projects · Settings · jtrace';
  }, []);
  return (
    <>
      <h2>Projects</h2>
      {projects.length === 0 ? (
        <p className="muted">No projects yet.</p>
      ) : (
        <table className="settings-table projects-settings">
          <caption className="visually-hidden">Projects</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Slug</th>
              <th scope="col">Environments</th>
              {owner ? <th scope="col">Rename</th> : null}
            </tr>
          </thead>
          <tbody>
            {projects.map((project) => (
              <tr key={project.id}>
                <td>
                  <ProjectName project={project} />
                </td>
                <td>
                  <code>{project.slug}</code>
                </td>
                <td>{project.environments.length === 0 ? <span className="muted">none</span> : <UserText text={project.environments.join(', ')} />}</td>
                {owner ? (
                  <td>
                    <RenameProject project={project} onRenamed={reloadProjects} />
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {owner ? <CreateProject onCreated={reloadProjects} /> : <p className="muted">Only instance owners create and rename projects.</p>}
    </>
  );
}

function CreateProject({ onCreated }: { onCreated: () => void }) {
  const [form, setForm] = useState<NewProjectRequest>({ slug: '', name: '' });
  const { busy, error, run } = useAction();
  const [created, setCreated] = useState<Project | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCreated(null);
    void run(async () => {
      setCreated(await request<Project>('/v1/projects', { method: 'POST', body: form }));
      setForm({ slug: '', name: '' });
      onCreated();
    });
  };
  return (
    <form className="card settings-form" onSubmit={submit} aria-label="Create a project">
      <h3>Create a project</h3>
      <label htmlFor="project-name">Name</label>
      <input id="project-name" required maxLength={200} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
      <label htmlFor="project-slug">Slug</label>
      <input
        id="project-slug"
        required
        maxLength={64}
        pattern="[a-z0-9]+(-[a-z0-9]+)*"
        aria-describedby="project-slug-hint"
        value={form.slug}
        onChange={(e) => setForm({ ...form, slug: e.target.value })}
      />
      <p id="project-slug-hint" className="muted">
        Lowercase letters, digits and single hyphens; the CLI names the project by it. It cannot be changed later.
      </p>
      <div>
        <button type="submit" disabled={busy}>
          Create project
        </button>
      </div>
      <ErrorMessage error={error} />
      {created ? (
        <p role="status" className="notice">
          Created <UserText text={created.name} />. Its environments appear when a key is made for one (<code>jtrace key:create</code>).
        </p>
      ) : null}
    </form>
  );
}

function RenameProject({ project, onRenamed }: { project: Project; onRenamed: () => void }) {
  const [name, setName] = useState(project.name);
  const { busy, error, run } = useAction();
  useEffect(() => setName(project.name), [project.name]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await request(`/v1/projects/${project.id}`, { method: 'PATCH', body: { name } });
      onRenamed();
    });
  };
  const id = `rename-${project.id}`;
  return (
    <form className="inline-form" onSubmit={submit} aria-label={`Rename ${project.slug}`}>
      <label htmlFor={id} className="visually-hidden">
        New name of {project.slug}
      </label>
      <input id={id} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
      <button type="submit" disabled={busy || name.trim() === project.name}>
        Rename
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}

/** The project's first settings page its role allows; its journeys when it allows none. */
function ProjectName({ project }: { project: Project }) {
  const first = useProjectSections(project.id)[0];
  return (
    <Link to={first ? `/settings/projects/${project.id}/${first.slug}` : `/projects/${project.id}/journeys`}>
      <UserText text={project.name} />
    </Link>
  );
}
