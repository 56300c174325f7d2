// Journeys over the window stacked by status: a spike of failures is seen, not read. A bar's
// counts show on hover and, with the chart focused, on ←/→; a click on a bar or a drag across
// bars (Enter on the current bar) narrows the window to them.
import { useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { Activity } from '../api.ts';
import { formatTime } from '../lib/format.ts';

const WIDTH = 960;
const HEIGHT = 140;
const STATUSES = ['completed', 'active', 'failed'] as const;
const TICKS = 5;

/** A tick label: the time of day, with seconds when the window is under ten minutes, and the date when it spans days. */
function tickLabel(ms: number, spanMs: number): string {
  const options: Intl.DateTimeFormatOptions =
    spanMs > 2 * 86_400_000 ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' } : { hour: '2-digit', minute: '2-digit', ...(spanMs < 600_000 ? { second: '2-digit' } : {}) };
  return new Intl.DateTimeFormat(undefined, options).format(new Date(ms));
}

export function ActivityChart({ activity, onNarrow }: { activity: Activity; onNarrow?: (since: string, until: string) => void }) {
  const buckets = activity.buckets;
  const totals = buckets.map((b) => b.active + b.completed + b.failed);
  const most = Math.max(0, ...totals);
  const max = Math.max(1, most);
  const barWidth = WIDTH / Math.max(1, buckets.length);
  const sum = (status: (typeof STATUSES)[number]) => buckets.reduce((total, b) => total + b[status], 0);
  const summary = `Journeys from ${formatTime(activity.since)} to ${formatTime(activity.until)}: ${sum('completed')} completed, ${sum('active')} active, ${sum('failed')} failed.`;
  const bucketMs = activity.bucketSeconds * 1000;
  const sinceMs = Date.parse(activity.since);
  const untilMs = Date.parse(activity.until);
  const [pointed, setCurrent] = useState<number | null>(null);
  const [dragged, setDrag] = useState<{ from: number; to: number } | null>(null);
  // A narrowed window arrives with other buckets while a bar is still pointed at or dragged
  // across: an index of the previous buckets names no bar of these.
  const inRange = (index: number) => index >= 0 && index < buckets.length;
  const current = pointed !== null && inRange(pointed) ? pointed : null;
  const drag = dragged && inRange(dragged.from) && inRange(dragged.to) ? dragged : null;
  const svg = useRef<SVGSVGElement>(null);

  const bucketEnd = (index: number) => Math.min(untilMs, Date.parse(buckets[index]!.start) + bucketMs);
  const describe = (index: number) => {
    const b = buckets[index]!;
    return `${formatTime(b.start)} to ${formatTime(new Date(bucketEnd(index)).toISOString())}: ${b.completed} completed, ${b.active} active, ${b.failed} failed`;
  };
  const narrow = (from: number, to: number) => {
    const [first, last] = from <= to ? [from, to] : [to, from];
    onNarrow?.(buckets[first]!.start, new Date(bucketEnd(last)).toISOString());
  };
  const indexAt = (event: PointerEvent<SVGSVGElement>) => {
    const box = svg.current!.getBoundingClientRect();
    return Math.min(buckets.length - 1, Math.max(0, Math.floor(((event.clientX - box.left) / box.width) * buckets.length)));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (buckets.length === 0) return;
    const at = current ?? buckets.length - 1;
    const moves: Record<string, number> = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: buckets.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      setCurrent(Math.min(buckets.length - 1, Math.max(0, moves[event.key]!)));
    } else if (event.key === 'Enter' && current !== null && onNarrow) {
      event.preventDefault();
      narrow(current, current);
    }
  };
  const selected = drag ? [Math.min(drag.from, drag.to), Math.max(drag.from, drag.to)] : null;

  return (
    <figure className="chart">
      <div
        className="chart-plot"
        tabIndex={0}
        role="group"
        aria-label={`Activity chart: ←/→ read a bar${onNarrow ? ', Enter lists only its journeys' : ''}.`}
        onKeyDown={onKeyDown}
        onBlur={() => setCurrent(null)}
      >
        <svg
          ref={svg}
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={summary}
          className={onNarrow ? 'narrowable' : undefined}
          onPointerDown={(event) => {
            if (!onNarrow || event.button !== 0) return;
            const index = indexAt(event);
            svg.current!.setPointerCapture(event.pointerId);
            setDrag({ from: index, to: index });
          }}
          onPointerMove={(event) => {
            const index = indexAt(event);
            setCurrent(index);
            if (drag) setDrag({ ...drag, to: index });
          }}
          onPointerUp={() => {
            if (drag) narrow(drag.from, drag.to);
            setDrag(null);
          }}
          onPointerLeave={() => {
            if (!drag) setCurrent(null);
          }}
        >
          {selected ? <rect className="chart-selection" x={selected[0]! * barWidth} y={0} width={(selected[1]! - selected[0]! + 1) * barWidth} height={HEIGHT} /> : null}
          {buckets.map((bucket, index) => {
            let y = HEIGHT;
            return (
              <g key={bucket.start} className={index === current ? 'bucket current' : 'bucket'}>
                <title>{describe(index)}</title>
                <rect className="bar-hit" x={index * barWidth} y={0} width={barWidth} height={HEIGHT} />
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
        <div className="chart-axis" aria-hidden="true">
          {Array.from({ length: TICKS }, (_, i) => (
            <span key={i}>{tickLabel(sinceMs + ((untilMs - sinceMs) * i) / (TICKS - 1), untilMs - sinceMs)}</span>
          ))}
        </div>
      </div>
      <p className="chart-readout" aria-live="polite">
        {current !== null ? describe(current) : onNarrow ? 'Point at a bar for its counts; click a bar or drag across bars to narrow the window.' : ''}
      </p>
      <figcaption>
        {STATUSES.map((status) => (
          <span key={status} className="legend">
            <span className={`swatch swatch-${status}`} aria-hidden="true" /> {status} {sum(status)}
          </span>
        ))}
        <span className="legend muted">
          one bar per {Math.round(activity.bucketSeconds / 60) ? `${Math.round(activity.bucketSeconds / 60)} min` : `${activity.bucketSeconds} s`} ·{' '}
          {most === 0 ? 'no journey in this window' : `most ${most} in a bar`}
        </span>
      </figcaption>
    </figure>
  );
}
