// A stored problem as the API shows it (docs/problems.md, "Resources").

import { formatTimestamp } from '../protocol/timestamps.ts';
import type { ProblemRow } from './problems-sql.ts';

const at = (date: Date | null) => (date === null ? null : formatTimestamp(date.getTime()));
const place = (service: string | null, name: string | null) => (service === null ? null : { service, name: name! });

export function problemView(row: ProblemRow) {
  return {
    id: row.id,
    environment: row.environment,
    kind: row.kind,
    path: row.path,
    step: place(row.step_service, row.step_name),
    from: place(row.from_service, row.from_name),
    inTransit: row.in_transit,
    status: row.status,
    statusChangedAt: at(row.status_changed_at)!,
    journeys: row.journeys,
    firstSeen: at(row.first_seen),
    lastSeen: at(row.last_seen),
    resolution: row.status === 'resolved' && row.resolved_at !== null ? { at: at(row.resolved_at)!, inNextRelease: row.resolved_next_release } : null,
    ignore: row.status === 'ignored' ? { until: at(row.ignored_until), moreJourneys: row.ignored_more_journeys, journeysSince: row.journeys_since_status } : null,
    regression: row.status === 'regressed' && row.regressed_at !== null ? { since: at(row.regressed_at)!, release: row.regressed_release } : null,
  };
}

export type ProblemView = ReturnType<typeof problemView>;
