// A problem's timeline: journeys by hour over the last 7 days, or by day over the retention
// period, as bars in an inline SVG (no chart library).
import { useState } from 'react';
import type { ProblemDetail } from '../api.ts';
import { seriesSummary } from '../lib/problems.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const WIDTH = 720;
const HEIGHT = 80;

export function ProblemTimeline({ problem }: { problem: ProblemDetail }) {
  const [by, setBy] = useState<'hourly' | 'daily'>('hourly');
  const series = problem[by];
  const { total, busiest } = seriesSummary(series.counts);
  const step = by === 'hourly' ? HOUR_MS : DAY_MS;
  const barWidth = WIDTH / Math.max(series.counts.length, 1);
  const start = Date.parse(series.start);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return (
    <section className="problem-timeline" aria-labelledby="timeline-heading">
      <div className="section-heading">
        <h2 id="timeline-heading">Timeline</h2>
        <div role="group" aria-label="Timeline scale" className="button-row">
          <button type="button" className={by === 'hourly' ? 'toggle on' : 'toggle'} aria-pressed={by === 'hourly'} onClick={() => setBy('hourly')}>
            Hourly, last 7 days
          </button>
          <button type="button" className={by === 'daily' ? 'toggle on' : 'toggle'} aria-pressed={by === 'daily'} onClick={() => setBy('daily')}>
            Daily, over retention
          </button>
        </div>
      </div>
      <svg className="problem-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={`${total} journeys ${by === 'hourly' ? 'in the last 7 days' : 'over the retention period'}, at most ${busiest} in ${by === 'hourly' ? 'an hour' : 'a day'}`}>
        {series.counts.map((count, i) =>
          count === 0 ? null : (
            <rect key={i} x={i * barWidth} width={Math.max(barWidth - 0.5, 0.5)} y={HEIGHT - (count / busiest) * HEIGHT} height={(count / busiest) * HEIGHT}>
              <title>{`${count} ${count === 1 ? 'journey' : 'journeys'} ${by === 'hourly' ? `at ${new Date(start + i * step).toISOString().slice(0, 13)}:00 UTC` : `on ${day(start + i * step)}`}`}</title>
            </rect>
          ),
        )}
      </svg>
      <p className="chart-axis muted">
        <span>{day(start)}</span>
        <span>{day(start + (series.counts.length - 1) * step)}</span>
      </p>
    </section>
  );
}
