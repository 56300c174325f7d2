import { Fragment, memo, useEffect, useRef, type ReactNode } from 'react';
import { formatDuration, formatPreciseTime } from '../lib/format.ts';
import { useTimeZone } from '../lib/time-zone.ts';
import type { TimelineEntry, TimelineItem } from '../lib/timeline.ts';
import { UserText } from './user-text.tsx';
import { timelineRowCount, VIRTUAL_FROM_ROWS, VirtualTimeline } from './virtual-timeline.tsx';

/**
 * One event's line; drawn again only when its own props change, so moving the selection ("j")
 * re-renders two lines. `scroll` brings it into view when selected (a windowed list scrolls itself).
 */
export const EventLine = memo(function EventLine({ entry, selected, attempt, onSelect, lost, scroll = true }: { entry: TimelineEntry; selected: boolean; attempt?: number | undefined; onSelect: (id: string) => void; lost?: string[] | undefined; scroll?: boolean }) {
  useTimeZone(); // drawn again when the UTC switch changes, though its props do not
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (selected && scroll) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [selected, scroll]);
  const { event } = entry;
  return (
    <li ref={ref} className={['event', entry.failed ? 'event-failed' : '', selected ? 'event-selected' : '', lost?.length ? 'event-lost' : ''].join(' ')}>
      <button type="button" className="event-button" aria-current={selected ? 'true' : undefined} onClick={() => onSelect(event.id)}>
        <span className="col-gap">{entry.gapMs === null ? '' : `+${formatDuration(entry.gapMs)}`}</span>
        <span className="col-main">
          {attempt !== undefined ? <span className="attempt">attempt {attempt}</span> : null}
          <UserText className="col-service" text={event.service} /> <UserText className="col-name" text={event.name} />{' '}
          <UserText className="col-op" text={event.operation} />
        </span>
        <span className="col-duration">{formatDuration(event.durationMs)}</span>
        <span className="col-second">
          <time dateTime={event.eventTimestamp}>{formatPreciseTime(event.eventTimestamp)}</time>
          {entry.failed ? <span className="flag flag-failed">{attempt !== undefined ? 'failed' : 'failure'}</span> : attempt !== undefined ? <span className="flag flag-ok">succeeded</span> : null}
          {lost?.length ? (
            <span className="flag flag-lost">
              lost <UserText text={lost.join(', ')} />
            </span>
          ) : null}
          {entry.skewMs !== null ? (
            <span className="flag flag-skew" title={`Stamped ${formatDuration(Math.abs(entry.skewMs))} ${entry.skewMs > 0 ? 'after' : 'before'} it arrived`}>
              clock skew {entry.skewMs > 0 ? '+' : '−'}
              {formatDuration(Math.abs(entry.skewMs))}
            </span>
          ) : null}
        </span>
      </button>
    </li>
  );
});

/**
 * The journey's steps in timeline order; retried steps grouped with each attempt's outcome.
 * `before` adds list items ahead of an event's line (or its group): what happened on the way in.
 */
export function Timeline({ items, selectedId, onSelect, before, lost, onNearEnd, long }: {
  items: TimelineItem[];
  selectedId: string | null;
  onSelect: (id: string) => void;
  before?: (eventId: string) => ReactNode;
  /** The fields each step lost first (by event id): the step is marked on the line. */
  lost?: Map<string, string[]>;
  /** A long journey's timeline calls it when its last rows come into view. */
  onNearEnd?: () => void;
  /** The journey has more events than a page draws whole, loaded or not yet. */
  long?: boolean;
}) {
  // A long journey renders only the rows in view (virtual-timeline.tsx).
  if (long === true || timelineRowCount(items) > VIRTUAL_FROM_ROWS) return <VirtualTimeline items={items} selectedId={selectedId} onSelect={onSelect} before={before} lost={lost} onNearEnd={onNearEnd} />;
  return (
    <ol className="timeline" aria-label="Timeline (j/k or arrow keys move between events)">
      {items.map((item) =>
        item.kind === 'event' ? (
          <Fragment key={item.entry.event.id}>
            {before?.(item.entry.event.id)}
            <EventLine entry={item.entry} selected={item.entry.event.id === selectedId} onSelect={onSelect} lost={lost?.get(item.entry.event.id)} />
          </Fragment>
        ) : (
          <Fragment key={item.key}>
            {item.attempts.map((attempt) => <Fragment key={attempt.event.id}>{before?.(attempt.event.id)}</Fragment>)}
            <li className="attempts">
              <div className="attempts-heading">
                <UserText text={item.service} /> · <UserText text={item.name} />: {item.attempts.length} attempts,{' '}
                {outcome(item.attempts)}
              </div>
              <ol>
                {item.attempts.map((attempt, index) => (
                  <EventLine key={attempt.event.id} entry={attempt} attempt={index + 1} selected={attempt.event.id === selectedId} onSelect={onSelect} lost={lost?.get(attempt.event.id)} />
                ))}
              </ol>
            </li>
          </Fragment>
        ),
      )}
    </ol>
  );
}

export function outcome(attempts: TimelineEntry[]): string {
  const failed = attempts.filter((attempt) => attempt.failed).length;
  const last = attempts[attempts.length - 1]!;
  return `${failed} failed, last ${last.failed ? 'failed' : 'succeeded'}`;
}
