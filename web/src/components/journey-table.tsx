import type { JourneySummary } from '../api.ts';
import { entityIdText, formatAgo, formatTime } from '../lib/format.ts';
import { Link } from '../router.tsx';
import { StatusBadge } from './common.tsx';
import { FindingsCell } from './findings.tsx';
import { UserText } from './user-text.tsx';

export function JourneyTable({ projectId, items, caption }: { projectId: string; items: JourneySummary[]; caption: string }) {
  return (
    <table className="journeys">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col" className="col-journey">Journey</th>
          <th scope="col" className="col-status">Status</th>
          <th scope="col" className="col-events">Events</th>
          <th scope="col" className="col-step">Step</th>
          <th scope="col" className="col-findings">Findings</th>
          <th scope="col" className="col-last">Last activity</th>
          <th scope="col" className="col-environment">Environment</th>
        </tr>
      </thead>
      <tbody>
        {items.map((journey) => (
          <tr key={journey.journeyId}>
            <td>
              <Link to={`/projects/${projectId}/journeys/${encodeURIComponent(journey.journeyId)}`} className="journey-link">
                <UserText text={journey.label ?? entityIdText(journey.entity.id)} />
              </Link>
              <div className="sub">
                <UserText text={journey.entity.type} /> <UserText text={entityIdText(journey.entity.id)} />
                {journey.displayableAliases.map((alias) => (
                  <span key={alias.type + alias.value} className="alias-chip">
                    <UserText text={alias.type} />: <UserText text={alias.value} />
                  </span>
                ))}
              </div>
            </td>
            <td>
              <StatusBadge status={journey.status} />
            </td>
            <td className="num">{journey.eventCount}</td>
            <td>
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
            <td>
              <FindingsCell findings={journey.findings} />
            </td>
            <td>
              <time dateTime={journey.lastEventAt} title={formatTime(journey.lastEventAt)}>
                {formatAgo(journey.lastEventAt)}
              </time>
            </td>
            <td>
              <UserText text={journey.environment} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
