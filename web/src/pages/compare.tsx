// Two journeys side by side (GET /v1/journeys/compare): pick the second one from the journeys of
// the same entity type, or paste its id. Both ids are in the URL so the comparison can be shared.
import { useEffect, useState, type FormEvent } from 'react';
import { query, request, type JourneyDetail, type JourneySummary, type Page, type Project } from '../api.ts';
import { Comparison } from '../components/comparison.tsx';
import { ErrorMessage, Loading, StatusBadge } from '../components/common.tsx';
import { formatTime, journeyTitle } from '../lib/format.ts';
import { Link, navigate, withParams } from '../router.tsx';
import { UserText } from '../components/user-text.tsx';
import { showBidiControls } from '../lib/bidi.ts';

const PICK_LIMIT = 50;
const PICK_WINDOW_MS = 7 * 86_400_000;

export function ComparePage({ project, params }: { project: Project; params: URLSearchParams }) {
  const a = params.get('a');
  const b = params.get('b');
  useEffect(() => {
    document.title = showBidiControls(`Compare journeys · ${project.name} · jtrace`);
  }, [project.name]);
  if (!a) return <ErrorMessage error="Open a journey and choose Compare to pick the journey to compare it with." />;
  return (
    <>
      <div className="page-heading">
        <h1>Compare journeys</h1>
      </div>
      <ChooseOther project={project} a={a} b={b} />
      {b ? <Comparison project={project} a={a} b={b} /> : null}
    </>
  );
}

function compareUrl(project: Project, a: string, b: string | null): string {
  return `/projects/${project.id}/compare` + withParams(new URLSearchParams(), { a, b });
}

/** The second journey: pasted, or one of the recent journeys of the same entity type. */
function ChooseOther({ project, a, b }: { project: Project; a: string; b: string | null }) {
  const [journey, setJourney] = useState<JourneyDetail | null>(null);
  const [others, setOthers] = useState<JourneySummary[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const options = { projectId: project.id };
    setJourney(null);
    setOthers(null);
    setError(null);
    request<JourneyDetail>(`/v1/journeys/${encodeURIComponent(a)}`, options).then((detail) => {
      setJourney(detail);
      const list = query({ since: new Date(Date.now() - PICK_WINDOW_MS).toISOString(), entityType: detail.entity.type, limit: PICK_LIMIT });
      request<Page<JourneySummary>>('/v1/journeys' + list, options).then((page) => setOthers(page.items.filter((j) => j.journeyId !== a)), setError);
    }, setError);
  }, [project.id, a]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const pasted = String(new FormData(event.currentTarget).get('b') ?? '').trim();
    if (pasted !== '') navigate(compareUrl(project, a, pasted));
  };

  if (error) return <ErrorMessage error={error} />;
  if (!journey) return <Loading what="the journey" />;
  return (
    <div className="compare-choose">
      <p>
        Comparing <Link to={`/projects/${project.id}/journeys/${encodeURIComponent(a)}`}><UserText text={journeyTitle(journey)} /></Link> (<UserText text={journey.entity.type} />) with another
        journey.
      </p>
      <form className="compare-form" onSubmit={submit}>
        <label>
          Journey id to compare with
          <input name="b" type="text" defaultValue={b ?? ''} key={b ?? ''} autoComplete="off" spellCheck={false} />
        </label>
        <button type="submit">Compare</button>
      </form>
      {others === null ? <Loading what={`recent ${showBidiControls(journey.entity.type)} journeys`} /> : null}
      {others && others.length > 0 ? (
        <details className="compare-pick" open={!b}>
          <summary>
            Or pick a recent <UserText text={journey.entity.type} /> journey
          </summary>
          <ul>
            {others.map((other) => (
              <li key={other.journeyId}>
                <Link to={compareUrl(project, a, other.journeyId)} aria-current={other.journeyId === b ? 'page' : undefined}>
                  <UserText text={journeyTitle(other)} />
                </Link>{' '}
                <StatusBadge status={other.status} /> <span className="muted">{formatTime(other.startedAt)}</span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
