// The project's problems (docs/problems.md): findings grouped by cause, with how many journeys
// each hits, when, in which releases, and its status; filters, sorts and cursor pages as the API.
import { useEffect, useState, type FormEvent } from 'react';
import { query, request, type Page, type Problem, type ProblemDetail, type Project } from '../api.ts';
import { EnvironmentOptions, ErrorMessage, Loading, Pager } from '../components/common.tsx';
import { FindingKindOptions } from '../components/findings.tsx';
import { ProblemStatusBadge, ProblemTitle, Sparkline } from '../components/problem-parts.tsx';
import { UserText } from '../components/user-text.tsx';
import { showBidiControls } from '../lib/bidi.ts';
import { formatAgo, formatTime } from '../lib/format.ts';
import { PROBLEM_SORTS, PROBLEM_STATUSES, problemListParams } from '../lib/problems.ts';
import { Link, navigate, withParams } from '../router.tsx';

const PAGE_SIZE = 25;

export function ProblemsPage({ project, params }: { project: Project; params: URLSearchParams }) {
  const key = params.toString();
  const [page, setPage] = useState<Page<Problem> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const base = `/projects/${project.id}/problems`;
  const list = problemListParams(params);

  useEffect(() => {
    document.title = showBidiControls(`Problems · ${project.name} · jtrace`);
    setPage(null);
    setError(null);
    const controller = new AbortController();
    request<Page<Problem>>(`/v1/projects/${project.id}/problems` + query({ ...problemListParams(new URLSearchParams(key)), limit: PAGE_SIZE }), { signal: controller.signal }).then(setPage, (e: unknown) => {
      if (!controller.signal.aborted) setError(e);
    });
    return () => controller.abort();
  }, [key, project.id, project.name]);

  const go = (changes: Record<string, string | null | undefined>) => navigate(base + withParams(params, { cursor: null, ...changes }));
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || null;
    go({ status: text('status'), kind: text('kind'), environment: text('environment'), service: text('service'), release: text('release'), sort: text('sort') });
  };
  const submitOnChange = (event: { currentTarget: HTMLSelectElement }) => event.currentTarget.form?.requestSubmit();

  return (
    <>
      <div className="page-heading">
        <h1>Problems</h1>
      </div>
      <form className="filters" onSubmit={apply} key={key} aria-label="Problem filters">
        <label>
          Status
          <select name="status" defaultValue={list.status ?? ''} onChange={submitOnChange}>
            <option value="">Open, regressed or resolved</option>
            {PROBLEM_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status[0]!.toUpperCase() + status.slice(1)}
              </option>
            ))}
            <option value="all">Every status</option>
          </select>
        </label>
        <label>
          Kind
          <select name="kind" defaultValue={list.kind ?? ''} onChange={submitOnChange}>
            <option value="">Any</option>
            <FindingKindOptions />
          </select>
        </label>
        <label>
          Environment
          <select name="environment" defaultValue={list.environment ?? ''} onChange={submitOnChange}>
            <EnvironmentOptions environments={project.environments} />
          </select>
        </label>
        <label>
          Service
          <input name="service" defaultValue={list.service ?? ''} size={12} />
        </label>
        <label>
          Release
          <input name="release" defaultValue={list.release ?? ''} size={10} />
        </label>
        <label>
          Sort
          <select name="sort" defaultValue={list.sort ?? 'journeys'} onChange={submitOnChange}>
            {Object.entries(PROBLEM_SORTS).map(([sort, label]) => (
              <option key={sort} value={sort}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <ErrorMessage error={error} />
      {!page && !error ? <Loading what="problems" /> : null}
      {page && page.items.length === 0 ? (
        <p role="status">{params.toString() === '' ? 'No problem: no journey has a finding that is open, regressed or resolved.' : 'No problem matches these filters.'}</p>
      ) : null}
      {page && page.items.length > 0 ? (
        <>
          <table className="problems stack">
            <caption>Problems, {PROBLEM_SORTS[(list.sort ?? 'journeys') as keyof typeof PROBLEM_SORTS].toLowerCase()} first</caption>
            <thead>
              <tr>
                <th scope="col" className="col-problem">Problem</th>
                <th scope="col" className="col-status">Status</th>
                <th scope="col" className="num">Journeys</th>
                <th scope="col">Last 7 days</th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
                <th scope="col">Releases</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((problem) => (
                <ProblemRow key={problem.id} project={project} problem={problem} />
              ))}
            </tbody>
          </table>
          <Pager
            onFirst={params.has('cursor') ? () => go({}) : null}
            onNext={page.nextCursor ? () => navigate(base + withParams(params, { cursor: page.nextCursor })) : null}
          />
        </>
      ) : null}
    </>
  );
}

/** A row reads its problem's detail for the sparkline and releases (the list item has neither). */
function ProblemRow({ project, problem }: { project: Project; problem: Problem }) {
  const [detail, setDetail] = useState<ProblemDetail | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    // A row without its sparkline still reads well: a failed read leaves the cells empty.
    request<ProblemDetail>(`/v1/projects/${project.id}/problems/${problem.id}`, { signal: controller.signal }).then(setDetail, () => undefined);
    return () => controller.abort();
  }, [project.id, problem.id, problem.statusChangedAt]);
  const releases = detail?.releases.filter((r) => r.release !== null).map((r) => r.release!) ?? [];
  return (
    <tr className={problem.status === 'regressed' ? 'problem-regressed-row' : undefined}>
      <td>
        <Link to={`/projects/${project.id}/problems/${problem.id}`} className="problem-link">
          <ProblemTitle problem={problem} />
        </Link>
        <div className="sub">
          <UserText text={problem.environment} />
          {problem.step ? (
            <>
              {' · '}
              <UserText text={problem.step.service} />
            </>
          ) : null}
        </div>
      </td>
      <td data-label="Status">
        <ProblemStatusBadge status={problem.status} />
        {problem.regression?.release ? (
          <div className="sub">
            in <UserText text={problem.regression.release} />
          </div>
        ) : null}
      </td>
      <td className="num" data-label="Journeys">{problem.journeys}</td>
      <td data-label="Last 7 days">{detail ? <Sparkline counts={detail.hourly.counts} /> : null}</td>
      <td data-label="First seen">{problem.firstSeen ? <time dateTime={problem.firstSeen} title={formatTime(problem.firstSeen)}>{formatAgo(problem.firstSeen)}</time> : '—'}</td>
      <td data-label="Last seen">{problem.lastSeen ? <time dateTime={problem.lastSeen} title={formatTime(problem.lastSeen)}>{formatAgo(problem.lastSeen)}</time> : '—'}</td>
      <td data-label="Releases">
        {releases.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          <>
            <UserText text={releases.slice(0, 3).join(', ')} />
            {releases.length > 3 ? <span className="muted"> +{releases.length - 3}</span> : null}
          </>
        )}
      </td>
    </tr>
  );
}
