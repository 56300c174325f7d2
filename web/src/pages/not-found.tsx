// What an unknown URL, a deleted journey or a foreign project shows: a heading, why, and ways back.
import { useEffect } from 'react';
import { Link } from '../router.tsx';

/** The one wording of an unknown project, wherever its address leads. */
export const PROJECT_NOT_FOUND = 'This project does not exist, or you hold no role in it. Choose another one.';

export function NotFound({ title, reason, projectId }: { title: string; reason: string; projectId?: string }) {
  useEffect(() => {
    document.title = `${title} · jtrace`;
  }, [title]);
  return (
    <section className="not-found" aria-labelledby="not-found-heading">
      <h1 id="not-found-heading">{title}</h1>
      <p>{reason}</p>
      <ul className="ways-back">
        {projectId ? (
          <li>
            <Link to={`/projects/${projectId}/journeys`}>Back to the journeys</Link>
          </li>
        ) : null}
        <li>
          <Link to="/">All projects</Link>
        </li>
      </ul>
    </section>
  );
}
