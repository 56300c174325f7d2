// Two journeys side by side (GET /v1/journeys/compare): pick the second one from the journeys of
// the same entity type, or paste its id. Both ids are in the URL so the comparison can be shared.
import { useEffect, useState, type FormEvent } from 'react';
import { query, request, type ComparedPair, type ComparedStep, type DiffRow, type JourneyComparison, type JourneyDetail, type JourneySummary, type Page, type Project } from '../api.ts';
import { ErrorMessage, Loading, StatusBadge } from '../components/common.tsx';
import { formatDuration, formatTime, formatValue, journeyTitle } from '../lib/format.ts';
import { Link, navigate, withParams } from '../router.tsx';
import { UserText } from '../components/user-text.tsx';
import { PAYLOAD_TEXT_LIMIT } from '../components/diff-table.tsx';
import { showBidiControls } from '../lib/bidi.ts';

const PICK_LIMIT = 50;
const PICK_WINDOW_MS = 7 * 86_400_000;
const DIFF_ROWS_SHOWN = 6;

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

function Comparison({ project, a, b }: { project: Project; a: string; b: string }) {
  const [data, setData] = useState<JourneyComparison | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const controller = new AbortController();
    setData(null);
    setError(null);
    request<JourneyComparison>('/v1/journeys/compare' + query({ a, b }), { projectId: project.id, signal: controller.signal }).then(setData, (e: unknown) => {
      if (!controller.signal.aborted) setError(e);
    });
    return () => controller.abort();
  }, [project.id, a, b]);

  if (error) return <ErrorMessage error={error} />;
  if (!data) return <Loading what="the comparison" />;
  const differing = data.pairs.filter((pair) => pair.differs).length;
  const journeyLink = (journey: JourneyDetail) => <Link to={`/projects/${project.id}/journeys/${encodeURIComponent(journey.journeyId)}`}><UserText text={journeyTitle(journey)} /></Link>;
  return (
    <section aria-labelledby="comparison-heading">
      <h2 id="comparison-heading">Side by side</h2>
      <p role="status">
        {differing === 0 ? 'The two timelines do not differ.' : `${differing} of ${data.pairs.length} steps differ.`}{' '}
        {data.firstDifference !== null ? <a href="#first-difference">Go to the first difference</a> : null}
      </p>
      {!data.exactAlignment ? <p className="muted">The timelines were too long to align exactly: their middle steps are listed unmatched.</p> : null}
      {data.truncated.a || data.truncated.b ? <p className="muted">Only the first events of a long journey were read.</p> : null}
      {data.diffRowsTruncated ? (
        <p className="muted">The differences are too many to list them all: later steps show their first changes only. Open a step in its journey for its whole diff.</p>
      ) : null}
      <table className="comparison stack">
        <caption className="visually-hidden">The two timelines step by step; differing steps are marked.</caption>
        <thead>
          <tr>
            <th scope="col">A: {journeyLink(data.a)}</th>
            <th scope="col">B: {journeyLink(data.b)}</th>
            <th scope="col">Difference</th>
          </tr>
        </thead>
        <tbody>
          {data.pairs.map((pair, index) => (
            <tr key={index} id={index === data.firstDifference ? 'first-difference' : undefined} className={pair.differs ? `pair differs pair-${pair.status}` : `pair pair-${pair.status}`}>
              <td data-label="A">
                <Step step={pair.a} />
              </td>
              <td data-label="B">
                <Step step={pair.b} />
              </td>
              <td data-label="Difference">
                <PairDifference pair={pair} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Step({ step }: { step: ComparedStep | null }) {
  if (!step) return <span className="muted">(no such step)</span>;
  return (
    <div className="compared-step">
      <span className="step-name">
        <UserText text={step.service} /> · <UserText text={step.name} />
      </span>{' '}
      <span className="muted">
        <UserText text={step.operation} /> · {formatDuration(step.durationMs)}
      </span>
      {step.hasError ? <span className="kind kind-lost"> error</span> : null}
    </div>
  );
}

const STATUS_LABEL: Record<ComparedPair['status'], string> = { matched: 'same step', moved: 'moved', only_a: 'only in A', only_b: 'only in B' };

function PairDifference({ pair }: { pair: ComparedPair }) {
  if (!pair.differs) return <span className="muted">same</span>;
  const notes: string[] = [];
  if (pair.status !== 'matched') notes.push(STATUS_LABEL[pair.status]);
  if (pair.a && pair.b) {
    if (pair.a.hasError !== pair.b.hasError) notes.push(pair.b.hasError ? 'only B failed' : 'only A failed');
    if (pair.a.inputStored !== pair.b.inputStored || pair.a.outputStored !== pair.b.outputStored) notes.push('stored different payloads');
  }
  return (
    <div className="pair-difference">
      <strong className="differs-mark">Differs</strong>
      {notes.length > 0 ? <span>: {notes.join(', ')}</span> : null}
      <DiffSummary rows={labelled('input', pair.inputDiff?.rows).concat(labelled('output', pair.outputDiff?.rows))} />
    </div>
  );
}

type LabelledRow = DiffRow & { side: string };

const labelled = (side: string, rows: DiffRow[] | undefined): LabelledRow[] => (rows ?? []).map((row) => ({ ...row, side }));

/**
 * Two different records always differ in their values; a field that is there in one and not in
 * the other is what people compare for, so those rows come first (a stable sort keeps the rest).
 */
function DiffSummary({ rows: all }: { rows: LabelledRow[] }) {
  if (all.length === 0) return null;
  const rows = [...all].sort((x, y) => Number(x.kind === 'changed') - Number(y.kind === 'changed'));
  return (
    <ul className="diff-summary">
      {rows.slice(0, DIFF_ROWS_SHOWN).map((row, index) => (
        <li key={index}>
          {row.side} <code>{row.path === '' ? '(whole value)' : <UserText text={row.path} limit={PAYLOAD_TEXT_LIMIT} />}</code> <span className={`kind kind-${row.kind}`}>{row.kind}</span>{' '}
          {'before' in row ? <code>
              <UserText text={formatValue(row.before)} limit={PAYLOAD_TEXT_LIMIT} />
            </code> : null}
          {'after' in row ? (
            <>
              {' → '}
              <code>
                <UserText text={formatValue(row.after)} limit={PAYLOAD_TEXT_LIMIT} />
              </code>
            </>
          ) : null}
        </li>
      ))}
      {rows.length > DIFF_ROWS_SHOWN ? <li className="muted">and {rows.length - DIFF_ROWS_SHOWN} more</li> : null}
    </ul>
  );
}
