import { useEffect, useState, type ReactNode } from 'react';
import type { DiffRow, EventDetail, Project } from '../api.ts';
import { readEvent } from '../lib/event-cache.ts';
import { formatDuration, formatJson, formatPreciseTime } from '../lib/format.ts';
import { clockSkewMs } from '../lib/timeline.ts';
import { ErrorMessage, Loading } from './common.tsx';
import { DiffTable, type FollowHandler } from './diff-table.tsx';
import { ReplayPanel } from './replay-panel.tsx';
import { useAllowed } from '../roles.tsx';
import { UserText } from './user-text.tsx';
import { AliasValue } from './alias-value.tsx';
import { showBidiControls } from '../lib/bidi.ts';

function Json({ title, value }: { title: string; value: unknown }) {
  if (value === null || value === undefined) return null;
  return (
    <details className="json" open>
      <summary>{title}</summary>
      <pre tabIndex={0}>{formatJson(value)}</pre>
    </details>
  );
}

function Fact({ name, children }: { name: string; children: ReactNode }) {
  return (
    <div className="fact">
      <dt>{name}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Everything recorded about one event: payloads, error, metadata, aliases, its diff and replay. */
export function EventDetailPanel({ project, eventId, onFollow }: { project: Project; eventId: string; onFollow?: FollowHandler }) {
  const [event, setEvent] = useState<EventDetail | null>(null);
  const [diff, setDiff] = useState<{ rows: DiffRow[]; truncated: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Replaying takes the operator role: a viewer is not offered the panel.
  const canReplay = useAllowed(project.id, 'replay.send');

  useEffect(() => {
    // Shown at once when already read (the page reads the neighbours of the selected event).
    let current = true;
    const read = readEvent(project.id, eventId);
    setEvent(read.ready.detail ?? null);
    setDiff(read.ready.diff ?? null);
    setError(null);
    const fail = (e: unknown) => {
      if (current) setError(e);
    };
    read.detail.then((detail) => current && setEvent(detail), fail);
    read.diff.then((answer) => current && setDiff(answer), fail);
    return () => {
      current = false;
    };
  }, [project.id, eventId]);

  if (error) return <ErrorMessage error={error} />;
  if (!event) return <Loading what="the event" />;
  const skew = clockSkewMs(event);
  const ids: [string, string | null][] = [
    ['Event', event.id],
    ['Parent event', event.parentEventId],
    ['Trace', event.traceId],
    ['Span', event.spanId],
    ['Message', event.messageId],
    ['Correlation', event.correlationId],
  ];
  return (
    <section className="event-detail" aria-labelledby="event-heading">
      <h2 id="event-heading">
        <UserText text={event.service} /> · <UserText text={event.name} />{' '}
        <span className="muted">
          (<UserText text={event.operation} />)
        </span>
      </h2>
      <dl className="facts">
        <Fact name="Happened">{formatPreciseTime(event.eventTimestamp)}</Fact>
        <Fact name="Arrived">
          {formatPreciseTime(event.receivedAt)}
          {skew !== null ? <span className="flag flag-skew">clock skew of {formatDuration(Math.abs(skew))}</span> : null}
        </Fact>
        <Fact name="Duration">{formatDuration(event.durationMs)}</Fact>
        {ids
          .filter(([, value]) => value)
          .map(([name, value]) => (
            <Fact key={name} name={name}>
              <code>
                <UserText text={value!} />
              </code>
            </Fact>
          ))}
        {event.aliases && event.aliases.length > 0 ? (
          <Fact name="Aliases">
            {event.aliases.map((alias, index) => (
              <span key={index}>
                {index > 0 ? ' · ' : null}
                <UserText text={alias.type} />: <AliasValue alias={alias} />
              </span>
            ))}
          </Fact>
        ) : null}
      </dl>
      {event.error ? (
        <div className="event-error" role="group" aria-label="Error">
          <h3>Error</h3>
          <p>
            {event.error.type ? (
              <strong>
                <UserText text={event.error.type} />:{' '}
              </strong>
            ) : null}
            <UserText text={event.error.message} />
            {event.error.code ? (
              <span className="muted">
                {' '}
                (code <UserText text={event.error.code} />)
              </span>
            ) : null}
          </p>
          {event.error.stack ? <pre tabIndex={0}>{showBidiControls(event.error.stack)}</pre> : null}
        </div>
      ) : null}
      {diff ? <DiffTable rows={diff.rows} caption="What this step changed (input → output)" beforeLabel="Input" afterLabel="Output" onFollow={onFollow} /> : null}
      {diff?.truncated ? <p className="muted">Only the first {diff.rows.length} differences are shown.</p> : null}
      {event.hasInput && event.hasOutput && !diff ? <Loading what="the diff" /> : null}
      <div className="payloads">
        <Json title="Input" value={event.inputPayload} />
        <Json title="Output" value={event.outputPayload} />
      </div>
      <Json title="Custom metadata" value={event.customMetadata} />
      <Json title="Runtime" value={event.runtimeMetadata} />
      <Json title="Deployment" value={event.deploymentMetadata} />
      {!canReplay ? null : event.hasInput ? <ReplayPanel project={project} event={event} /> : <p className="muted">This event recorded no input, so it cannot be replayed.</p>}
    </section>
  );
}
