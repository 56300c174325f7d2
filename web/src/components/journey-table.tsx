import type { JourneySummary } from '../api.ts';
import { entityIdText, formatAgo, formatDuration, formatTime } from '../lib/format.ts';
import { journeyDurationMs, SORTS, type SortKey } from '../lib/journey-sort.ts';
import { Link } from '../router.tsx';
import { StatusBadge } from './common.tsx';
import { FindingsCell } from './findings.tsx';
import { UserText } from './user-text.tsx';

/** A column header that sorts the list when the page offers sorting (`aria-sort` says the order). */
function SortHeader({ by, className, sort, onSort }: { by: SortKey; className: string; sort?: SortKey | undefined; onSort?: ((by: SortKey) => void) | undefined }) {
  if (!onSort) return <th scope="col" className={className}>{SORTS[by]}</th>;
  return (
    <th scope="col" className={className} aria-sort={sort === by ? 'descending' : undefined}>
      <button type="button" className="sort-button" aria-pressed={sort === by} onClick={() => onSort(by)}>
        {SORTS[by]}
        {sort === by ? <span aria-hidden="true"> ↓</span> : null}
      </button>
    </th>
  );
}

export function JourneyTable({ projectId, items, caption, captionHidden, sort, onSort }: {
  projectId: string;
  items: JourneySummary[];
  caption: string;
  /** The list names its order for assistive technology only: the line above says how many match, and a row more shows. */
  captionHidden?: boolean;
  sort?: SortKey;
  onSort?: (by: SortKey) => void;
}) {
  return (
    <table className="journeys stack">
      <caption className={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
      <thead>
        <tr>
          <th scope="col" className="col-journey">Journey</th>
          <th scope="col" className="col-status">Status</th>
          <th scope="col" className="col-events">Events</th>
          <th scope="col" className="col-step">Step</th>
          <th scope="col" className="col-findings">Findings</th>
          <SortHeader by="duration" className="col-duration-list" sort={sort} onSort={onSort} />
          <SortHeader by="last" className="col-last" sort={sort} onSort={onSort} />
          {onSort ? <SortHeader by="start" className="col-started" sort={sort} onSort={onSort} /> : null}
          <th scope="col" className="col-environment">Environment</th>
        </tr>
      </thead>
      <tbody>
        {items.map((journey) => {
          const entityId = entityIdText(journey.entity.id);
          // The link already reads the entity id when there is no label, or when the label names it.
          const idInTitle = journey.label === null || journey.label.includes(entityId);
          return (
            <tr key={journey.journeyId}>
              <td>
                <Link to={`/projects/${projectId}/journeys/${encodeURIComponent(journey.journeyId)}`} className="journey-link" title={journey.label ?? entityId}>
                  <UserText text={journey.label ?? entityId} />
                </Link>
                <div className="sub">
                  <UserText text={journey.entity.type} />
                  {idInTitle ? null : (
                    <>
                      {' '}
                      <UserText text={entityId} />
                    </>
                  )}
                  {journey.displayableAliases.map((alias) => (
                    <span key={alias.type + alias.value} className="alias-chip">
                      <UserText text={alias.type} />: <UserText text={alias.value} />
                    </span>
                  ))}
                </div>
              </td>
              <td data-label="Status">
                <StatusBadge status={journey.status} />
              </td>
              <td className="num" data-label="Events">{journey.eventCount}</td>
              <td data-label="Step">
                {journey.failedStep ? (
                  <span className="failed-step">
                    failed at <UserText text={journey.failedStep} />
                  </span>
                ) : journey.lastStep ? (
                  <UserText text={journey.lastStep} />
                ) : (
                  '—'
                )}
              </td>
              <td data-label="Findings">
                <FindingsCell findings={journey.findings} />
              </td>
              <td className="num" data-label="Duration">{formatDuration(journeyDurationMs(journey))}</td>
              <td data-label="Last activity">
                <time dateTime={journey.lastEventAt} title={formatTime(journey.lastEventAt)}>
                  {formatAgo(journey.lastEventAt)}
                </time>
              </td>
              {onSort ? (
                <td data-label="Started">
                  <time dateTime={journey.startedAt} title={formatTime(journey.startedAt)}>
                    {formatAgo(journey.startedAt)}
                  </time>
                </td>
              ) : null}
              <td data-label="Environment">
                <UserText text={journey.environment} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
