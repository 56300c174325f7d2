import { useEffect, useState } from 'react';
import { query, request, type FindingsSummary, type JourneySummary, type Page, type Project } from '../api.ts';
import { ErrorMessage, Loading } from '../components/common.tsx';
import { JourneyTable } from '../components/journey-table.tsx';
import { UserText } from '../components/user-text.tsx';
import { OtherForms } from '../components/other-forms.tsx';
import { Link } from '../router.tsx';
import { showBidiControls } from '../lib/bidi.ts';
import { fieldPathsMatching, looseMatchWording } from '../lib/search-hints.ts';

type Match = 'exact' | 'loose';

/** How far back the known field paths are read: the journeys list's longest window. */
const FIELD_WINDOW_MS = 30 * 86_400_000;

export function SearchPage({ project, q }: { project: Project; q: string }) {
  const [page, setPage] = useState<Page<JourneySummary> | null>(null);
  const [match, setMatch] = useState<Match>('exact');
  const [more, setMore] = useState<JourneySummary[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [fields, setFields] = useState<FindingsSummary['topLostFields']>([]);

  useEffect(() => {
    document.title = showBidiControls(`Find “${q}” · jtrace`);
    setPage(null);
    setMatch('exact');
    setMore([]);
    setError(null);
    setFields([]);
    if (q.trim() === '') return;
    let current = true;
    const search = (m: Match) => request<Page<JourneySummary>>('/v1/search' + query({ q, limit: 50, ...(m === 'loose' ? { match: 'loose' } : {}) }), { projectId: project.id });
    // Identifiers match exactly; when that finds nothing, an e-mail address in another case or
    // a phone number in another spelling may still find its journeys.
    void (async () => {
      const exact = await search('exact');
      if (exact.items.length > 0) return { page: exact, match: 'exact' as const };
      const loose = await search('loose');
      return loose.items.length > 0 ? { page: loose, match: 'loose' as const } : { page: exact, match: 'exact' as const };
    })().then((found) => {
      if (!current) return;
      setMatch(found.match);
      setPage(found.page);
    }, (e) => current && setError(e));
    // A word that names a field (phone → customer.phone) offers the journeys that lost it.
    request<FindingsSummary>('/v1/findings/summary' + query({ since: new Date(Date.now() - FIELD_WINDOW_MS).toISOString() }), { projectId: project.id })
      .then((summary) => current && setFields(fieldPathsMatching(summary.topLostFields, q)), () => undefined);
    return () => {
      current = false;
    };
  }, [project.id, q]);

  const loadMore = async () => {
    if (!page?.nextCursor) return;
    try {
      const next = await request<Page<JourneySummary>>('/v1/search' + query({ q, limit: 50, cursor: page.nextCursor, ...(match === 'loose' ? { match } : {}) }), { projectId: project.id });
      setMore((items) => [...items, ...next.items]);
      setPage({ ...page, nextCursor: next.nextCursor });
    } catch (e) {
      setError(e);
    }
  };

  const count = page ? page.items.length + more.length : 0;
  return (
    <>
      <h1>Find a record</h1>
      <p className="muted">
        Any identifier: entity id, alias (such as an e-mail address), journey id, trace, span, message or correlation id.
      </p>
      <ErrorMessage error={error} />
      {q.trim() === '' ? <p>Type an identifier in the box above.</p> : null}
      {q.trim() !== '' && !page && !error ? <Loading what="results" /> : null}
      {fields.length > 0 ? (
        <section className="field-hints" aria-labelledby="field-hints-heading">
          <h2 id="field-hints-heading">Fields named “{showBidiControls(q.trim())}”</h2>
          <ul>
            {fields.map((field) => (
              <li key={field.path}>
                <Link to={`/projects/${project.id}/journeys?window=month&finding=lost&path=${encodeURIComponent(field.path)}`}>
                  {field.journeys} {field.journeys === 1 ? 'journey' : 'journeys'} lost <code><UserText text={field.path} /></code>
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {page && page.items.length === 0 ? (
        <p role="status">
          Nothing matches{' '}
          <code>
            <UserText text={q} />
          </code>{' '}
          in <UserText text={project.name} />, not even ignoring case or phone number spelling. For part of a label or alias,
          use the “contains” filter of the journeys list.
        </p>
      ) : null}
      {page && page.items.length === 0 ? <OtherForms projectId={project.id} q={q} /> : null}
      {page && page.items.length > 0 && match === 'loose' ? (
        <p role="status" className="loose-note">
          Nothing matches <code><UserText text={q} /></code> exactly: {looseMatchWording(count, page.nextCursor !== null, q)}.
        </p>
      ) : null}
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
