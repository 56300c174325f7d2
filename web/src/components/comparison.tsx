// Two journeys side by side, read for what people compare them for: a value one journey carries
// and the other lost, and where. Values that differ only because the entities differ are set apart.
import { useEffect, useMemo, useState } from 'react';
import { query, request, type ComparedStep, type JourneyComparison, type JourneyDetail, type Project } from '../api.ts';
import { differsInSubstance, firstLosses, readPair, summarize, type OneSided, type PairReading } from '../lib/compare.ts';
import { formatDuration, formatValue, journeyTitle } from '../lib/format.ts';
import { Link } from '../router.tsx';
import { ErrorMessage, Loading } from './common.tsx';
import { PAYLOAD_TEXT_LIMIT } from './diff-table.tsx';
import { UserText } from './user-text.tsx';

const ROWS_SHOWN = 6;

export function Comparison({ project, a, b }: { project: Project; a: string; b: string }) {
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
  const readings = useMemo(() => data?.pairs.map(readPair) ?? [], [data]);

  if (error) return <ErrorMessage error={error} />;
  if (!data) return <Loading what="the comparison" />;
  const firsts = firstLosses(readings);
  const first = readings.findIndex(differsInSubstance);
  const journeyLink = (journey: JourneyDetail) => (
    <Link to={`/projects/${project.id}/journeys/${encodeURIComponent(journey.journeyId)}`}>
      <UserText text={journeyTitle(journey)} />
    </Link>
  );
  return (
    <section aria-labelledby="comparison-heading">
      <h2 id="comparison-heading">Side by side</h2>
      <p role="status" className="compare-summary">
        <strong>{summarize(readings, firsts)}</strong> {first >= 0 ? <a href={`#pair-${first}`}>Go to the first difference</a> : null}
      </p>
      {firsts.length > 0 ? <OneSidedList items={firsts} /> : null}
      {!data.exactAlignment ? <p className="muted">The timelines were too long to align exactly: their middle steps are listed unmatched.</p> : null}
      {data.truncated.a || data.truncated.b ? <p className="muted">Only the first events of a long journey were read.</p> : null}
      {data.diffRowsTruncated ? (
        <p className="muted">The differences are too many to list them all: later steps show their first changes only. Open a step in its journey for its whole diff.</p>
      ) : null}
      <table className="comparison stack">
        <caption className="visually-hidden">The two timelines step by step, aligned by service and step name; steps that differ beyond their entity's values are marked.</caption>
        <thead>
          <tr>
            <th scope="col">A: {journeyLink(data.a)}</th>
            <th scope="col">B: {journeyLink(data.b)}</th>
            <th scope="col">Difference</th>
          </tr>
        </thead>
        <tbody>
          {data.pairs.map((pair, index) => {
            const reading = readings[index]!;
            const substance = differsInSubstance(reading);
            return (
              <tr key={index} id={`pair-${index}`} className={substance ? `pair differs pair-${pair.status}` : `pair pair-${pair.status}`}>
                <td data-label="A">
                  <Step step={pair.a} />
                </td>
                <td data-label="B">
                  <Step step={pair.b} />
                </td>
                <td data-label="Difference">
                  <PairDifference reading={reading} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function OneSidedList({ items }: { items: OneSided[] }) {
  return (
    <section aria-labelledby="one-sided-heading" className="one-sided">
      <h3 id="one-sided-heading">In one journey only</h3>
      <ul>
        {items.map((item) => (
          <li key={`${item.lacking} ${item.path}`}>
            <code>{item.path === '' ? '(whole value)' : <UserText text={item.path} limit={PAYLOAD_TEXT_LIMIT} />}</code>{' '}
            <span className="kind kind-lost">lost in {item.lacking}</span> at{' '}
            <a href={`#pair-${item.pairIndex}`}>
              <UserText text={item.step.service} /> · <UserText text={item.step.name} />
            </a>{' '}
            ({item.payload}); {item.lacking === 'A' ? 'B' : 'A'} has{' '}
            <code>
              <UserText text={formatValue(item.value)} limit={PAYLOAD_TEXT_LIMIT} />
            </code>
          </li>
        ))}
      </ul>
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

function PairDifference({ reading }: { reading: PairReading }) {
  const { oneSided, entityValues, stepNotes } = reading;
  if (oneSided.length === 0 && stepNotes.length === 0 && entityValues.length === 0) return <span className="muted">same</span>;
  return (
    <div className="pair-difference">
      {differsInSubstance(reading) ? (
        <>
          <strong className="differs-mark">Differs</strong>
          {stepNotes.length > 0 ? <span>: {stepNotes.join(', ')}</span> : null}
        </>
      ) : (
        <span className="muted">Same step</span>
      )}
      {oneSided.length > 0 ? (
        <ul className="diff-summary">
          {oneSided.slice(0, ROWS_SHOWN).map((item, index) => (
            <li key={index}>
              {item.payload} <code><UserText text={item.path || '(whole value)'} limit={PAYLOAD_TEXT_LIMIT} /></code> <span className="kind kind-lost">lost in {item.lacking}</span>
            </li>
          ))}
          {oneSided.length > ROWS_SHOWN ? <li className="muted">and {oneSided.length - ROWS_SHOWN} more</li> : null}
        </ul>
      ) : null}
      {entityValues.length > 0 ? (
        <details className="entity-values">
          <summary>
            {entityValues.length} {entityValues.length === 1 ? 'value differs' : 'values differ'} with the entity
          </summary>
          <ul className="diff-summary">
            {entityValues.slice(0, ROWS_SHOWN).map((row, index) => (
              <li key={index}>
                {row.payload} <code><UserText text={row.path || '(whole value)'} limit={PAYLOAD_TEXT_LIMIT} /></code>{' '}
                <code><UserText text={formatValue(row.before)} limit={PAYLOAD_TEXT_LIMIT} /></code> →{' '}
                <code><UserText text={formatValue(row.after)} limit={PAYLOAD_TEXT_LIMIT} /></code>
              </li>
            ))}
            {entityValues.length > ROWS_SHOWN ? <li className="muted">and {entityValues.length - ROWS_SHOWN} more</li> : null}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
