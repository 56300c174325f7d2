// Each step a bar at its time with its duration, one lane per service; gaps show as empty space.
// The drawing is as wide in units as the figure is in pixels, so its text keeps its CSS size on
// a phone (a 1000-unit drawing in 356 px drew 5 px labels); there each lane's service name goes
// on a row of its own above the lane's bars, leaving the whole width to the bars.
import { useLayoutEffect, useRef, useState, type RefObject } from 'react';
import type { EventRow } from '../api.ts';
import { showBidiControls } from '../lib/bidi.ts';
import { formatDuration } from '../lib/format.ts';
import { isFailure } from '../lib/timeline.ts';

/** Drawn width before the figure is measured (and in a browser without ResizeObserver). */
const DEFAULT_WIDTH = 1000;
/** Below this many pixels the service names go above their lanes. */
const NARROW = 600;
const LANE = 26;
const LABEL = 150;
/** The row above a lane that holds its service name on a narrow figure. */
const NAME_ROW = 16;
const MIN_BAR = 3;
const TICKS = 5;
/** Above this many events the bars are too close for their names. */
const LABELLED_MAX = 30;

/** The figure's inner width in pixels, followed as the window changes. */
function useWidth(drawn: boolean): [RefObject<HTMLElement | null>, number] {
  const ref = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(DEFAULT_WIDTH);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const measure = () => setWidth(Math.max(200, Math.round(element.clientWidth - 8)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [drawn]);
  return [ref, width];
}

export function Waterfall(props: { events: EventRow[]; selectedId: string | null; onSelect: (id: string) => void; lost?: Map<string, string[]> }) {
  const [ref, width] = useWidth(props.events.length > 0);
  if (props.events.length === 0) return null;
  return (
    <figure className="waterfall" ref={ref}>
      <WaterfallDrawing {...props} width={width} />
    </figure>
  );
}

function WaterfallDrawing({ events, selectedId, onSelect, lost, width: WIDTH }: { events: EventRow[]; selectedId: string | null; onSelect: (id: string) => void; lost?: Map<string, string[]> | undefined; width: number }) {
  const narrow = WIDTH < NARROW;
  const label = narrow ? 0 : LABEL;
  const top = narrow ? NAME_ROW : 0;
  const laneHeight = LANE + top;
  const services = [...new Set(events.map((event) => event.service))];
  const starts = events.map((event) => Date.parse(event.eventTimestamp));
  const t0 = Math.min(...starts);
  const t1 = Math.max(...events.map((event, index) => starts[index]! + (event.durationMs ?? 0)));
  const span = Math.max(1, t1 - t0);
  const plot = WIDTH - label - 10;
  const height = services.length * laneHeight + 24;
  const bars = events.map((event, index) => ({
    event,
    x: label + ((starts[index]! - t0) / span) * plot,
    width: Math.max(MIN_BAR, ((event.durationMs ?? 0) / span) * plot),
    lane: services.indexOf(event.service),
    lostHere: lost?.get(event.id),
  }));
  // A bar's name goes to its right, else to its left, where it covers no bar and no other name of
  // its lane; else it is left to the bar's tooltip. Up to LABELLED_MAX events only.
  const taken = new Map<number, [number, number][]>();
  for (const bar of bars) taken.set(bar.lane, [...(taken.get(bar.lane) ?? []), [bar.x - 1, bar.x + bar.width + 1]]);
  const labels = events.length > LABELLED_MAX ? [] : bars.flatMap((bar) => {
    const text = showBidiControls(barLabel(bar.event.name)) + (bar.lostHere ? ' · lost' : '');
    const textWidth = Array.from(text).length * 6.5;
    const spans = taken.get(bar.lane)!;
    const free = (from: number, to: number) => from >= label && to <= WIDTH - 4 && spans.every(([a, b]) => to <= a || from >= b);
    const right: [number, number] = [bar.x + bar.width + 4, bar.x + bar.width + 4 + textWidth];
    const left: [number, number] = [bar.x - 4 - textWidth, bar.x - 4];
    const place = free(...right) ? right : free(...left) ? left : null;
    if (!place) return [];
    spans.push(place);
    return [{ bar, text, start: place === right }];
  });
  return (
    <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        className={narrow ? 'narrow' : undefined}
        role="img"
        aria-label={`Waterfall of ${events.length} events over ${formatDuration(span)} across ${services.length} services: ${showBidiControls(services.join(', '))}.`}
      >
        {services.map((service, lane) => (
          <g key={service}>
            <rect className="lane" x={0} y={lane * laneHeight} width={WIDTH} height={laneHeight} />
            <text className="lane-label" x={6} y={lane * laneHeight + (narrow ? 12 : 17)}>
              {laneLabel(service)}
            </text>
          </g>
        ))}
        {bars.map(({ event, x, width, lane, lostHere }) => {
          const classes = ['step', isFailure(event) ? 'step-failed' : '', event.id === selectedId ? 'step-selected' : '', lostHere ? 'step-lost' : ''].join(' ');
          return (
            <rect key={event.id} className={classes} x={x} y={lane * laneHeight + top + 5} width={width} height={LANE - 10} onClick={() => onSelect(event.id)}>
              <title>{showBidiControls(`${event.service} · ${event.name} (${event.operation})`) + ` · ${formatDuration(event.durationMs)}${lostHere ? ` · lost ${lostHere.join(', ')}` : ''}`}</title>
            </rect>
          );
        })}
        {labels.map(({ bar, text, start }) => (
          <text
            key={bar.event.id}
            className={bar.lostHere ? 'bar-label bar-label-lost' : 'bar-label'}
            x={start ? bar.x + bar.width + 4 : bar.x - 4}
            y={bar.lane * laneHeight + top + 17}
            textAnchor={start ? 'start' : 'end'}
          >
            {text}
          </text>
        ))}
        {Array.from({ length: TICKS }, (_, i) => (
          <g key={i}>
            <line className="tick" x1={label + (plot * i) / (TICKS - 1)} x2={label + (plot * i) / (TICKS - 1)} y1={services.length * laneHeight} y2={services.length * laneHeight + 4} />
            <text className="axis" x={label + (plot * i) / (TICKS - 1)} y={height - 6} textAnchor={i === 0 ? 'start' : i === TICKS - 1 ? 'end' : 'middle'}>
              {i === 0 ? '0' : `+${formatDuration((span * i) / (TICKS - 1))}`}
            </text>
          </g>
        ))}
      </svg>
  );
}

/** SVG text cannot wrap: a service's name is cut to fit its lane's label, direction controls shown. */
function laneLabel(service: string): string {
  const shown = showBidiControls(service);
  return shown.length > 20 ? Array.from(shown).slice(0, 19).join('') + '…' : shown;
}

/** A step's name on its bar, cut to fit beside it. */
function barLabel(name: string): string {
  const points = Array.from(name);
  return points.length > 24 ? points.slice(0, 23).join('') + '…' : name;
}
