// Journey forensics on the journey page: what changed in the journey, and one field followed
// through every step (docs/forensics.md).
import { useEffect, useRef, useState, type RefObject } from 'react';
import { query, request, type FollowedField, type FollowedStep, type JourneyChanges, type Observation, type Project, type StepRef, type Verdict } from '../api.ts';
import { formatValue } from '../lib/format.ts';
import { Link } from '../router.tsx';
import { ErrorMessage, Loading } from './common.tsx';
import { FollowButton, PAYLOAD_TEXT_LIMIT, type FollowHandler } from './diff-table.tsx';
import { UserText } from './user-text.tsx';

const VERDICT_LABEL: Record<Verdict, string> = {
  absent: 'absent',
  appeared: 'appeared',
  unchanged: 'unchanged',
  changed: 'changed',
  lost: 'lost',
  redacted: 'redacted',
  not_captured: 'not captured',
};

interface Forensics<T> {
  data: T | null;
  error: unknown;
}

/**
 * Reads one forensics route of the journey once `revision` is known, and again whenever it
 * changes (new events arrived). A new URL starts empty; a new revision keeps the answer shown
 * until the next one arrives, so a live refresh neither flickers nor moves focus.
 */
function useForensics<T>(project: Project, url: string, revision: string | null): Forensics<T> {
  const [state, setState] = useState<{ url: string; data: T | null; error: unknown }>({ url, data: null, error: null });
  useEffect(() => {
    if (revision === null) return;
    const controller = new AbortController();
    request<T>(url, { projectId: project.id, signal: controller.signal }).then(
      (data) => setState({ url, data, error: null }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ url, data: null, error });
      },
    );
    return () => controller.abort();
  }, [project.id, url, revision]);
  return state.url === url ? state : { data: null, error: null };
}

/** What changed in the journey; read again at each new `revision`. */
export function useJourneyChanges(project: Project, journeyId: string, revision: string | null): Forensics<JourneyChanges> {
  return useForensics<JourneyChanges>(project, `/v1/journeys/${encodeURIComponent(journeyId)}/changes`, revision);
}

const stepName = (step: StepRef) => `${step.service} · ${step.name}`;

/** Every field the journey changed or lost, lost first, each with where it happened. */
export function WhatChanged({ changes, onFollow, headingRef, eventHref }: {
  changes: Forensics<JourneyChanges>;
  onFollow: FollowHandler;
  headingRef: RefObject<HTMLHeadingElement | null>;
  /** Makes each step under Where a link that selects it. */
  eventHref?: (eventId: string) => string;
}) {
  const { data, error } = changes;
  return (
    <section aria-labelledby="changes-heading" className="forensics-panel">
      {/* Focus lands here when following stops and the control that started it is gone. */}
      <h2 id="changes-heading" tabIndex={-1} ref={headingRef}>
        What changed
      </h2>
      {error ? <ErrorMessage error={error} /> : null}
      {!data && !error ? <Loading what="the changes" /> : null}
      {data && data.changes.length === 0 ? <p className="muted">No field changed between the stored payloads of this journey.</p> : null}
      {data && data.changes.length > 0 ? (
        <table className="changes payload-table with-actions stack">
          <caption className="visually-hidden">Fields this journey changed or lost, lost first</caption>
          <thead>
            <tr>
              <th scope="col" className="col-kind">Change</th>
              <th scope="col" className="col-field">Field</th>
              <th scope="col">Where</th>
              <th scope="col" className="col-actions">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.changes.map((change, index) => (
              <tr key={index} className={`diff-${change.kind}`}>
                <td data-label="Change">
                  <span className={`kind kind-${change.kind}`}>{change.kind}</span>
                </td>
                <td data-label="Field">
                  <code>{change.path === '' ? '(whole value)' : <UserText text={change.path} limit={PAYLOAD_TEXT_LIMIT} />}</code>
                  {change.renamedFrom !== undefined ? (
                    <div className="sub">
                      from <code><UserText text={change.renamedFrom} limit={PAYLOAD_TEXT_LIMIT} /></code>
                    </div>
                  ) : null}
                </td>
                <td data-label="Where">
                  {change.steps.map((step, at) => (
                    <span key={step.eventId + at} className="where">
                      {step.inTransit && step.from ? (
                        // Only a loss across a hand-off is an alarm; a value that appears there is news.
                        <span className={change.kind === 'lost' ? 'transit' : 'handoff'}>
                          in transit <UserText text={step.from.name} /> →{' '}
                        </span>
                      ) : null}
                      {eventHref ? (
                        <Link to={eventHref(step.eventId)} replace>
                          <UserText text={step.name} />
                        </Link>
                      ) : (
                        <UserText text={step.name} />
                      )}
                    </span>
                  ))}
                  {change.stepCount > change.steps.length ? <span className="muted"> and {change.stepCount - change.steps.length} more</span> : null}
                </td>
                <td className="cell-actions">{change.path === '' ? null : <FollowButton path={change.path} onFollow={onFollow} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {data?.changesTruncated ? <p className="muted">Some changes were left out: the list is bounded.</p> : null}
      {data?.truncated ? <p className="muted">Only the journey's first events were read.</p> : null}
    </section>
  );
}

function ObservedValue({ label, observation }: { label: string; observation: Observation | null }) {
  let text: string;
  if (observation === null) text = 'not stored';
  else if (observation.state === 'missing') text = '(missing)';
  else if (observation.state === 'redacted') text = '[REDACTED]';
  else text = formatValue(observation.value);
  return (
    <div className="observed">
      <span className="muted">{label}</span>{' '}
      <code>{observation?.state === 'present' ? <UserText text={text} limit={PAYLOAD_TEXT_LIMIT} /> : text}</code>
    </div>
  );
}

function VerdictTag({ verdict }: { verdict: Verdict }) {
  return <span className={`verdict verdict-${verdict}`}>{VERDICT_LABEL[verdict]}</span>;
}

/** One field's path through the timeline; the step where it was first lost is highlighted. */
export function FieldTrail({ project, journeyId, revision, path, onClose, onSelect }: {
  project: Project;
  journeyId: string;
  /** Changes when new events arrive: the path is read again. */
  revision: string | null;
  path: string;
  onClose: () => void;
  onSelect: (eventId: string) => void;
}) {
  const { data, error } = useForensics<FollowedField>(project, `/v1/journeys/${encodeURIComponent(journeyId)}/fields` + query({ path }), revision);
  const heading = useRef<HTMLHeadingElement>(null);
  // Following a field moves the reader there, keyboard focus included.
  useEffect(() => {
    heading.current?.focus();
  }, [path]);
  const loss = data?.firstLoss ?? null;
  return (
    <section aria-labelledby="trail-heading" className="forensics-panel field-trail">
      <div className="trail-heading">
        <h2 id="trail-heading" tabIndex={-1} ref={heading}>
          Following{' '}
          <code>
            <UserText text={path} limit={PAYLOAD_TEXT_LIMIT} />
          </code>
        </h2>
        <button type="button" className="small" onClick={onClose}>
          Stop following
        </button>
      </div>
      {error ? <ErrorMessage error={error} /> : null}
      {!data && !error ? <Loading what="the field's path" /> : null}
      {data ? (
        <>
          <p className="trail-summary" role="status">
            {loss ? (
              loss.inTransit && loss.from ? (
                <>
                  Lost in transit between <UserText text={stepName(loss.from)} /> and <UserText text={stepName(loss)} />.
                </>
              ) : (
                <>
                  Lost at <UserText text={stepName(loss)} />.
                </>
              )
            ) : data.firstDifference ? (
              <>
                Never lost; first changed at <UserText text={stepName(data.firstDifference)} />.
              </>
            ) : (
              'Never lost or changed in this journey.'
            )}
          </p>
          <ol className="trail">
            {data.steps.map((step) => (
              <TrailStep key={step.eventId} step={step} lostHere={loss?.eventId === step.eventId} lostInTransit={loss?.eventId === step.eventId && loss.inTransit} onSelect={onSelect} />
            ))}
          </ol>
          {data.truncated ? <p className="muted">Only the journey's first events were read.</p> : null}
        </>
      ) : null}
    </section>
  );
}

function TrailStep({ step, lostHere, lostInTransit, onSelect }: { step: FollowedStep; lostHere: boolean; lostInTransit: boolean; onSelect: (eventId: string) => void }) {
  return (
    <li className={lostHere ? 'trail-step lost-here' : 'trail-step'} aria-current={lostHere ? 'step' : undefined}>
      {step.handOff ? (
        <div className={lostInTransit ? 'hand-off lost-in-transit' : 'hand-off'}>
          hand-off from <UserText text={step.handOff.from.name} />: <VerdictTag verdict={step.handOff.verdict} />
          {lostInTransit ? <strong> lost in transit</strong> : null}
        </div>
      ) : null}
      <div className="trail-step-head">
        <button type="button" className="link-button" onClick={() => onSelect(step.eventId)}>
          <UserText text={step.service} /> · <UserText text={step.name} />
        </button>{' '}
        <VerdictTag verdict={step.verdict} />
        {lostHere && !lostInTransit ? <strong className="lost-mark"> lost here</strong> : null}
      </div>
      <ObservedValue label="in" observation={step.input} />
      <ObservedValue label="out" observation={step.output} />
    </li>
  );
}

/** A value lost across a hand-off: it left `from` and never arrived at the step `to`. */
export interface TransitLoss {
  path: string;
  from: StepRef;
  to: StepRef;
}

/** The hand-off losses of the changes answer, by the event of the step that should have received the value. */
export function transitLossesByEvent(changes: JourneyChanges | null): Map<string, TransitLoss[]> {
  const byEvent = new Map<string, TransitLoss[]>();
  for (const change of changes?.changes ?? []) {
    if (change.kind !== 'lost' || change.path === '') continue;
    for (const step of change.steps) {
      if (!step.inTransit || step.from === null) continue;
      const loss = { path: change.path, from: step.from, to: step };
      byEvent.set(step.eventId, [...(byEvent.get(step.eventId) ?? []), loss]);
    }
  }
  return byEvent;
}

/** The timeline's line between two steps where a value was lost in transit; it follows that field. */
export function TransitLossMarker({ loss, to, onFollow }: { loss: TransitLoss; to: string; onFollow: (origin: HTMLElement) => void }) {
  return (
    <li className="transit-loss">
      <Link to={to} onClick={(event) => onFollow(event.currentTarget)}>
        <code>
          <UserText text={loss.path} />
        </code>{' '}
        lost between <UserText text={stepName(loss.from)} /> and <UserText text={stepName(loss.to)} />
      </Link>
    </li>
  );
}
