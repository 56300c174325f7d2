// Each step a bar at its time with its duration, one lane per service; gaps show as empty space.
// The drawing is as wide in units as the figure is in pixels, so its text keeps its CSS size on
// a phone (a 1000-unit drawing in 356 px drew 5 px labels); there each lane's service name goes
// on a row of its own above the lane's bars, leaving the whole width to the bars.
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { createSelection, useSelected, type Selection } from '../lib/selection.ts';
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
  // The drawing keeps one select function, so a new selection redraws two bars, not every bar.
  const onSelect = useRef(props.onSelect);
  onSelect.current = props.onSelect;
  const select = useCallback((id: string) => onSelect.current(id), []);
  // The selection reaches the bars through a store: the drawing itself is not rendered again.
  const [selection] = useState(() => createSelection(props.selectedId));
  useLayoutEffect(() => selection.set(props.selectedId), [selection, props.selectedId]);
  if (props.events.length === 0) return null;
  return (
    <figure className="waterfall" ref={ref}>
      <WaterfallDrawing events={props.events} selection={selection} onSelect={select} lost={props.lost} width={width} />
    </figure>
  );
}

/** One step's bar: drawn again only when it is selected or unselected (a journey may have 10,000). */
const StepBar = memo(function StepBar({ event, x, y, width, height, selection, lostHere, onSelect }: {
  event: EventRow;
  x: number;
  y: number;
  width: number;
  height: number;
  selection: Selection;
  lostHere: string[] | undefined;
  onSelect: (id: string) => void;
}) {
  const selected = useSelected(selection, event.id);
  const classes = ['step', isFailure(event) ? 'step-failed' : '', selected ? 'step-selected' : '', lostHere ? 'step-lost' : ''].join(' ');
  return (
    <rect className={classes} x={x} y={y} width={width} height={height} onClick={() => onSelect(event.id)}>
      <title>{showBidiControls(`${event.service} · ${event.name} (${event.operation})`) + ` · ${formatDuration(event.durationMs)}${lostHere ? ` · lost ${lostHere.join(', ')}` : ''}`}</title>
    </rect>
  );
});

const WaterfallDrawing = memo(function WaterfallDrawing({ events, selection, onSelect, lost, width: WIDTH }: { events: EventRow[]; selection: Selection; onSelect: (id: string) => void; lost?: Map<string, string[]> | undefined; width: number }) {
  // Laid out once per set of events and width: moving the selection ("j") reuses it.
  const { narrow, label, top, laneHeight, services, span, plot, height, bars, labels } = useMemo(() => layout(events, WIDTH, lost), [events, WIDTH, lost]);
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
        {bars.map(({ event, x, width, lane, lostHere }) => (
          <StepBar key={event.id} event={event} x={x} y={lane * laneHeight + top + 5} width={width} height={LANE - 10} selection={selection} lostHere={lostHere} onSelect={onSelect} />
        ))}
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
});

function layout(events: EventRow[], WIDTH: number, lost: Map<string, string[]> | undefined) {
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
  if (events.length <= LABELLED_MAX) {
    for (const bar of bars) {
      if (!taken.has(bar.lane)) taken.set(bar.lane, []);
      taken.get(bar.lane)!.push([bar.x - 1, bar.x + bar.width + 1]);
    }
  }
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
  return { narrow, label, top, laneHeight, services, span, plot, height, bars, labels };
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
