// What an unknown URL, a deleted journey or a foreign project shows: a heading, why, and ways back.
import { useEffect } from 'react';
import { Link } from '../router.tsx';

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
