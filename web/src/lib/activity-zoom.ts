// Where the chart of a default window starts: at the activity, when it fills less than a quarter
// of the window. Exact from the journeys' last activity when the list holds them all, else from
// the first bar with a journey.
import type { Activity } from '../api.ts';

const FILLED = 0.25;

export function activityStart(activity: Activity, lastActivities: string[] | null): string | null {
  const since = Date.parse(activity.since);
  const until = Date.parse(activity.until);
  const span = until - since;
  let first: number;
  if (lastActivities && lastActivities.length > 0) {
    first = Math.min(...lastActivities.map((t) => Date.parse(t)));
  } else {
    const bucket = activity.buckets.find((b) => b.active + b.completed + b.failed > 0);
    if (!bucket) return null;
    first = Date.parse(bucket.start);
  }
  if (lastActivities?.length === 0 || until - first >= span * FILLED) return null;
  // A margin of a tenth before the first journey, at least a second, so its bar is not the edge.
  const margin = Math.max(1000, (until - first) / 10);
  return new Date(Math.max(since, Math.floor(first - margin))).toISOString();
}
