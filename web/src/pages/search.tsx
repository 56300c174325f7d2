import { useEffect, useState } from 'react';
import { query, request, type JourneySummary, type Page, type Project } from '../api.ts';
import { ErrorMessage, Loading } from '../components/common.tsx';
import { JourneyTable } from '../components/journey-table.tsx';
import { UserText } from '../components/user-text.tsx';
import { OtherForms } from '../components/other-forms.tsx';
import { showBidiControls } from '../lib/bidi.ts';

export function SearchPage({ project, q }: { project: Project; q: string }) {
  const [page, setPage] = useState<Page<JourneySummary> | null>(null);
  const [more, setMore] = useState<JourneySummary[]>([]);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    document.title = showBidiControls(`Find “${q}” · jtrace`);
    setPage(null);
    setMore([]);
    setError(null);
    if (q.trim() === '') return;
    request<Page<JourneySummary>>('/v1/search' + query({ q, limit: 50 }), { projectId: project.id }).then(setPage, setError);
  }, [project.id, q]);

  const loadMore = async () => {
    if (!page?.nextCursor) return;
    try {
      const next = await request<Page<JourneySummary>>('/v1/search' + query({ q, limit: 50, cursor: page.nextCursor }), { projectId: project.id });
      setMore((items) => [...items, ...next.items]);
      setPage({ ...page, nextCursor: next.nextCursor });
    } catch (e) {
      setError(e);
    }
  };

  return (
    <>
      <h1>Find a record</h1>
      <p className="muted">
        Any identifier: entity id, alias (such as an e-mail address), journey id, trace, span, message or correlation id.
      </p>
      <ErrorMessage error={error} />
      {q.trim() === '' ? <p>Type an identifier in the box above.</p> : null}
      {q.trim() !== '' && !page && !error ? <Loading what="results" /> : null}
      {page && page.items.length === 0 ? (
        <p role="status">
          Nothing matches{' '}
          <code>
            <UserText text={q} />
          </code>{' '}
          in <UserText text={project.name} />. Identifiers are matched exactly; for part of a label or alias,
          use the “contains” filter of the journeys list.
        </p>
      ) : null}
      {page && page.items.length === 0 ? <OtherForms projectId={project.id} q={q} /> : null}
      {page && page.items.length > 0 ? (
        <>
          <JourneyTable projectId={project.id} items={[...page.items, ...more]} caption={`Journeys matching “${showBidiControls(q)}”`} />
          {page.nextCursor ? (
            <button type="button" onClick={loadMore}>
              More results
            </button>
          ) : null}
        </>
      ) : null}
    </>
  );
}
