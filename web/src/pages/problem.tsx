// One problem (docs/problems.md): its timeline, example journeys, where it happens, its
// releases, its status actions and the verification of a fix.
import { useEffect, useState } from 'react';
import { request, type Problem, type ProblemDetail, type Project } from '../api.ts';
import { ErrorMessage, Loading } from '../components/common.tsx';
import { NotFound } from './not-found.tsx';
import { kindLabel, ProblemPlace, ProblemStatusBadge, ProblemTitle, problemText } from '../components/problem-parts.tsx';
import { ProblemStatusActions } from '../components/problem-status-actions.tsx';
import { ProblemTimeline } from '../components/problem-timeline.tsx';
import { UserText } from '../components/user-text.tsx';
import { VerifyFix } from '../components/verify-fix.tsx';
import { ApiError } from '../api.ts';
import { showBidiControls } from '../lib/bidi.ts';
import { formatTime } from '../lib/format.ts';
import { Link } from '../router.tsx';

export function ProblemPage({ project, problemId }: { project: Project; problemId: string }) {
  const [problem, setProblem] = useState<ProblemDetail | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [revision, setRevision] = useState(0);

  useEffect(() => {
    setError(null);
    const controller = new AbortController();
    request<ProblemDetail>(`/v1/projects/${project.id}/problems/${encodeURIComponent(problemId)}`, { signal: controller.signal }).then(setProblem, (e: unknown) => {
      if (!controller.signal.aborted) setError(e);
    });
    return () => controller.abort();
  }, [project.id, problemId, revision]);
  useEffect(() => {
    if (problem) document.title = showBidiControls(`${problemText(problem)} · Problems · ${project.name} · jtrace`);
  }, [problem, project.name]);

  if (error instanceof ApiError && error.status === 404) return <NotFound title="Problem not found" reason="This problem does not exist in this project." projectId={project.id} />;
  if (error) return <ErrorMessage error={error} />;
  if (!problem) return <Loading what="the problem" />;
  const journeyHref = (id: string) => `/projects/${project.id}/journeys/${encodeURIComponent(id)}`;
  const changed = (updated: Problem) => {
    setProblem({ ...problem, ...updated });
    setRevision((r) => r + 1);
  };
  return (
    <article className="problem-page">
      <p className="breadcrumb">
        <Link to={`/projects/${project.id}/problems`}>Problems</Link>
      </p>
      <div className="page-heading">
        <h1>
          <ProblemTitle problem={problem} />
        </h1>
        <ProblemStatusBadge status={problem.status} />
      </div>
      <dl className="problem-facts">
        <dt>Kind</dt>
        <dd>{kindLabel(problem.kind)}</dd>
        <dt>Environment</dt>
        <dd>
          <UserText text={problem.environment} />
        </dd>
        <dt>Journeys</dt>
        <dd>
          <Link to={`/projects/${project.id}/journeys?problem=${problem.id}`}>{problem.journeys === 1 ? '1 journey' : `${problem.journeys} journeys`}</Link>
        </dd>
        <dt>First seen</dt>
        <dd>{problem.firstSeen ? formatTime(problem.firstSeen) : '—'}</dd>
        <dt>Last seen</dt>
        <dd>{problem.lastSeen ? formatTime(problem.lastSeen) : '—'}</dd>
        {problem.regression ? (
          <>
            <dt>Regressed</dt>
            <dd>
              {formatTime(problem.regression.since)}
              {problem.regression.release ? (
                <>
                  {' '}
                  in <UserText text={problem.regression.release} />
                </>
              ) : null}
            </dd>
          </>
        ) : null}
        {problem.resolution ? (
          <>
            <dt>Resolved</dt>
            <dd>
              {formatTime(problem.resolution.at)}
              {problem.resolution.inNextRelease ? ', in the next release' : ''}
            </dd>
          </>
        ) : null}
        {problem.ignore ? (
          <>
            <dt>Ignored</dt>
            <dd>
              {problem.ignore.until ? `until ${formatTime(problem.ignore.until)}` : problem.ignore.moreJourneys ? `until ${problem.ignore.moreJourneys} more journeys (${problem.ignore.journeysSince} so far)` : 'for good'}
            </dd>
          </>
        ) : null}
      </dl>
      <ProblemStatusActions projectId={project.id} problem={problem} onChanged={changed} />
      <ProblemTimeline problem={problem} />
      <section aria-labelledby="place-heading">
        <h2 id="place-heading">Where it happens</h2>
        <ProblemPlace problem={problem} />
      </section>
      <section aria-labelledby="examples-heading">
        <h2 id="examples-heading">Example journeys</h2>
        {problem.examples.latest === null ? (
          <p className="muted">No journey has it now.</p>
        ) : (
          <ul className="problem-examples">
            <li>
              Most recent: <Link to={journeyHref(problem.examples.latest)}><UserText text={problem.examples.latest} /></Link>
            </li>
            {problem.examples.first !== null && problem.examples.first !== problem.examples.latest ? (
              <li>
                First: <Link to={journeyHref(problem.examples.first)}><UserText text={problem.examples.first} /></Link>
              </li>
            ) : null}
          </ul>
        )}
      </section>
      <section aria-labelledby="releases-heading">
        <h2 id="releases-heading">Releases</h2>
        {problem.releases.length === 0 ? (
          <p className="muted">No journey has it now.</p>
        ) : (
          <table className="problem-releases stack">
            <caption>Releases, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Release</th>
                <th scope="col" className="num">Journeys</th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {problem.releases.map((r) => (
                <tr key={r.release ?? ''}>
                  <td>{r.release === null ? <span className="muted">no release</span> : <UserText text={r.release} />}</td>
                  <td className="num" data-label="Journeys">{r.journeys}</td>
                  <td data-label="First seen">{formatTime(r.firstSeen)}</td>
                  <td data-label="Last seen">{formatTime(r.lastSeen)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <VerifyFix projectId={project.id} problem={problem} />
    </article>
  );
}
