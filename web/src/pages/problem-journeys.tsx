// The journeys list filtered by a problem (GET /problems/:id/journeys): the journeys that have
// it now, latest first, each with the release it came from.
import { useEffect, useState } from 'react';
import { query, request, type Page, type ProblemDetail, type ProblemJourney, type Project } from '../api.ts';
import { ErrorMessage, Loading, Pager } from '../components/common.tsx';
import { ProblemTitle, problemText } from '../components/problem-parts.tsx';
import { UserText } from '../components/user-text.tsx';
import { showBidiControls } from '../lib/bidi.ts';
import { formatAgo, formatTime } from '../lib/format.ts';
import { Link, navigate, withParams } from '../router.tsx';

const PAGE_SIZE = 50;

export function ProblemJourneysPage({ project, params }: { project: Project; params: URLSearchParams }) {
  const problemId = params.get('problem') ?? '';
  const cursor = params.get('cursor') ?? undefined;
  const [problem, setProblem] = useState<ProblemDetail | null>(null);
  const [page, setPage] = useState<Page<ProblemJourney> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const base = `/v1/projects/${project.id}/problems/${encodeURIComponent(problemId)}`;
  useEffect(() => {
    setError(null);
    request<ProblemDetail>(base).then((p) => {
      setProblem(p);
      document.title = showBidiControls(`Journeys with ${problemText(p)} · ${project.name} · jtrace`);
    }, setError);
  }, [base, project.name]);
  useEffect(() => {
    setPage(null);
    request<Page<ProblemJourney>>(`${base}/journeys` + query({ limit: PAGE_SIZE, cursor })).then(setPage, setError);
  }, [base, cursor]);
  const here = `/projects/${project.id}/journeys`;
  return (
    <>
      <div className="page-heading">
        <h1>Journeys</h1>
        <Link to={here} className="link-button">
          Clear the problem filter
        </Link>
      </div>
      {problem ? (
        <p className="notice">
          With the problem <Link to={`/projects/${project.id}/problems/${problem.id}`}><ProblemTitle problem={problem} /></Link> (<UserText text={problem.environment} />).
        </p>
      ) : null}
      <ErrorMessage error={error} />
      {!page && !error ? <Loading what="journeys" /> : null}
      {page && page.items.length === 0 ? <p role="status">No journey has this problem now.</p> : null}
      {page && page.items.length > 0 ? (
        <>
          <table className="problem-journeys stack">
            <caption>Journeys with this problem, most recent activity first</caption>
            <thead>
              <tr>
                <th scope="col">Journey</th>
                <th scope="col">Last activity</th>
                <th scope="col">Release</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((j) => (
                <tr key={j.journeyId}>
                  <td>
                    <Link to={`${here}/${encodeURIComponent(j.journeyId)}`} className="journey-link">
                      <UserText text={j.journeyId} />
                    </Link>
                  </td>
                  <td data-label="Last activity">
                    <time dateTime={j.lastEventAt} title={formatTime(j.lastEventAt)}>{formatAgo(j.lastEventAt)}</time>
                  </td>
                  <td data-label="Release">{j.release === null ? <span className="muted">—</span> : <UserText text={j.release} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager
            onFirst={cursor ? () => navigate(here + withParams(params, { cursor: null })) : null}
            onNext={page.nextCursor ? () => navigate(here + withParams(params, { cursor: page.nextCursor })) : null}
          />
        </>
      ) : null}
    </>
  );
}
