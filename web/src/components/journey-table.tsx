import type { JourneySummary } from '../api.ts';
import { entityIdText, formatAgo, formatTime } from '../lib/format.ts';
import { Link } from '../router.tsx';
import { StatusBadge } from './common.tsx';

export function JourneyTable({ projectId, items, caption }: { projectId: string; items: JourneySummary[]; caption: string }) {
  return (
    <table className="journeys">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Journey</th>
          <th scope="col">Status</th>
          <th scope="col">Events</th>
          <th scope="col">Step</th>
          <th scope="col">Last activity</th>
          <th scope="col">Environment</th>
        </tr>
      </thead>
      <tbody>
        {items.map((journey) => (
          <tr key={journey.journeyId}>
            <td>
              <Link to={`/projects/${projectId}/journeys/${encodeURIComponent(journey.journeyId)}`} className="journey-link">
                {journey.label ?? entityIdText(journey.entity.id)}
              </Link>
              <div className="sub">
                {journey.entity.type} {entityIdText(journey.entity.id)}
                {journey.displayableAliases.map((alias) => (
                  <span key={alias.type + alias.value} className="alias-chip">
                    {alias.type}: {alias.value}
                  </span>
                ))}
              </div>
            </td>
            <td>
              <StatusBadge status={journey.status} />
            </td>
            <td className="num">{journey.eventCount}</td>
            <td>{journey.failedStep ? <span className="failed-step">failed at {journey.failedStep}</span> : (journey.lastStep ?? '—')}</td>
            <td>
              <time dateTime={journey.lastEventAt} title={formatTime(journey.lastEventAt)}>
                {formatAgo(journey.lastEventAt)}
              </time>
            </td>
            <td>{journey.environment}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
