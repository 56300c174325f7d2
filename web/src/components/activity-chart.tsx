// Journeys over the window stacked by status: a spike of failures is seen, not read.
import type { Activity } from '../api.ts';
import { formatTime } from '../lib/format.ts';

const WIDTH = 960;
const HEIGHT = 140;
const STATUSES = ['completed', 'active', 'failed'] as const;

export function ActivityChart({ activity }: { activity: Activity }) {
  const buckets = activity.buckets;
  const totals = buckets.map((b) => b.active + b.completed + b.failed);
  const most = Math.max(0, ...totals);
  const max = Math.max(1, most);
  const barWidth = WIDTH / Math.max(1, buckets.length);
  const sum = (status: (typeof STATUSES)[number]) => buckets.reduce((total, b) => total + b[status], 0);
  const summary = `Journeys from ${formatTime(activity.since)} to ${formatTime(activity.until)}: ${sum('completed')} completed, ${sum('active')} active, ${sum('failed')} failed.`;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={summary}>
        {buckets.map((bucket, index) => {
          let y = HEIGHT;
          return (
            <g key={bucket.start}>
              <title>{`${formatTime(bucket.start)}: ${bucket.completed} completed, ${bucket.active} active, ${bucket.failed} failed`}</title>
              {STATUSES.map((status) => {
                const height = (bucket[status] / max) * (HEIGHT - 4);
                y -= height;
                return height > 0 ? (
                  <rect key={status} className={`bar-${status}`} x={index * barWidth + 1} y={y} width={Math.max(1, barWidth - 2)} height={height} />
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      <figcaption>
        {STATUSES.map((status) => (
          <span key={status} className="legend">
            <span className={`swatch swatch-${status}`} aria-hidden="true" /> {status} {sum(status)}
          </span>
        ))}
        <span className="legend muted">
          one bar per {Math.round(activity.bucketSeconds / 60) || 1} min · {most === 0 ? 'no journey in this window' : `most ${most} in a bar`}
        </span>
      </figcaption>
    </figure>
  );
}
