// What a page shows to someone whose role does not allow it (reached by its address, since no
// link leads there): one sentence naming the role it needs and, for an admin role, who holds it.
// No form, no request that would be refused.
import { useEffect } from 'react';
import { roleNeeded, sessionProject, useSessionInfo, type Action } from '../roles.tsx';
import { Link } from '../router.tsx';
import { UserText } from './user-text.tsx';

export function RoleNeeded({ title, action, projectId, level = 1 }: { title: string; action: Action; projectId?: string; level?: 1 | 2 }) {
  const session = useSessionInfo();
  useEffect(() => {
    if (level === 1) document.title = `${title} · jtrace`;
  }, [title, level]);
  const needed = roleNeeded(action);
  const project = projectId === undefined ? undefined : sessionProject(session, projectId);
  const Heading = level === 1 ? 'h1' : 'h2';
  return (
    <section className="role-needed" aria-labelledby="role-needed-heading">
      <Heading id="role-needed-heading">{title}</Heading>
      <p>
        {needed === 'owner' ? (
          <>This page is for owners of this jtrace instance.</>
        ) : projectId === undefined ? (
          <>This page needs the {needed} role in at least one project.</>
        ) : (
          <>
            This page needs the {needed} role in this project (you are {project ? `${project.role === 'admin' ? 'an' : 'a'} ${project.role}` : 'not a member'})
            {needed === 'admin' && project && project.admins.length > 0 ? (
              <>
                ; its admins are{' '}
                {project.admins.map((a, i) => (
                  <span key={a.email}>
                    {i > 0 ? ', ' : ''}
                    <UserText text={a.name === '' ? a.email : `${a.name} (${a.email})`} />
                  </span>
                ))}
                .
              </>
            ) : needed === 'admin' ? (
              <>; ask an owner of this jtrace instance.</>
            ) : (
              '.'
            )}
          </>
        )}
      </p>
      {projectId ? (
        <p>
          <Link to={`/projects/${projectId}/journeys`}>Back to the journeys</Link>
        </p>
      ) : null}
    </section>
  );
}
