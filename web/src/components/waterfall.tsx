// Each step a bar at its time with its duration, one lane per service; gaps show as empty space.
import type { EventRow } from '../api.ts';
import { showBidiControls } from '../lib/bidi.ts';
import { formatDuration } from '../lib/format.ts';
import { isFailure } from '../lib/timeline.ts';

const WIDTH = 1000;
const LANE = 26;
const LABEL = 150;
const MIN_BAR = 3;
const TICKS = 5;
/** Above this many events the bars are too close for their names. */
const LABELLED_MAX = 30;

export function Waterfall({ events, selectedId, onSelect, lost }: { events: EventRow[]; selectedId: string | null; onSelect: (id: string) => void; lost?: Map<string, string[]> }) {
  if (events.length === 0) return null;
  const services = [...new Set(events.map((event) => event.service))];
  const starts = events.map((event) => Date.parse(event.eventTimestamp));
  const t0 = Math.min(...starts);
  const t1 = Math.max(...events.map((event, index) => starts[index]! + (event.durationMs ?? 0)));
  const span = Math.max(1, t1 - t0);
  const plot = WIDTH - LABEL - 10;
  const height = services.length * LANE + 24;
  const labelled = events.length <= LABELLED_MAX;
  // Where each lane's last name ends: a name that would overlap it is left to the bar's tooltip.
  const labelEnds = new Map<string, number>();
  const placeLabel = (lane: string, from: number, to: number) => {
    if (from < (labelEnds.get(lane) ?? -Infinity)) return false;
    labelEnds.set(lane, to + 6);
    return true;
  };
  return (
    <figure className="waterfall">
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="img"
        aria-label={`Waterfall of ${events.length} events over ${formatDuration(span)} across ${services.length} services: ${showBidiControls(services.join(', '))}.`}
      >
        {services.map((service, lane) => (
          <g key={service}>
            <rect className="lane" x={0} y={lane * LANE} width={WIDTH} height={LANE} />
            <text className="lane-label" x={6} y={lane * LANE + 17}>
              {laneLabel(service)}
            </text>
          </g>
        ))}
        {events.map((event, index) => {
          const x = LABEL + ((starts[index]! - t0) / span) * plot;
          const width = Math.max(MIN_BAR, ((event.durationMs ?? 0) / span) * plot);
          const lane = services.indexOf(event.service);
          const lostHere = lost?.get(event.id);
          const classes = ['step', isFailure(event) ? 'step-failed' : '', event.id === selectedId ? 'step-selected' : '', lostHere ? 'step-lost' : ''].join(' ');
          // A bar's name goes to its right, or to its left near the end of the axis.
          const text = showBidiControls(barLabel(event.name)) + (lostHere ? ' · lost' : '');
          const textWidth = Array.from(text).length * 6.5;
          const right = x + width + 4 + textWidth < WIDTH - 4;
          const shown = labelled && placeLabel(event.service, right ? x + width + 4 : x - 4 - textWidth, right ? x + width + 4 + textWidth : x - 4);
          return (
            <g key={event.id}>
              <rect className={classes} x={x} y={lane * LANE + 5} width={width} height={LANE - 10} onClick={() => onSelect(event.id)}>
                <title>{showBidiControls(`${event.service} · ${event.name} (${event.operation})`) + ` · ${formatDuration(event.durationMs)}${lostHere ? ` · lost ${lostHere.join(', ')}` : ''}`}</title>
              </rect>
              {shown ? (
                <text className={lostHere ? 'bar-label bar-label-lost' : 'bar-label'} x={right ? x + width + 4 : x - 4} y={lane * LANE + 17} textAnchor={right ? 'start' : 'end'}>
                  {text}
                </text>
              ) : null}
            </g>
          );
        })}
        {Array.from({ length: TICKS }, (_, i) => (
          <g key={i}>
            <line className="tick" x1={LABEL + (plot * i) / (TICKS - 1)} x2={LABEL + (plot * i) / (TICKS - 1)} y1={services.length * LANE} y2={services.length * LANE + 4} />
            <text className="axis" x={LABEL + (plot * i) / (TICKS - 1)} y={height - 6} textAnchor={i === 0 ? 'start' : i === TICKS - 1 ? 'end' : 'middle'}>
              {i === 0 ? '0' : `+${formatDuration((span * i) / (TICKS - 1))}`}
            </text>
          </g>
        ))}
      </svg>
    </figure>
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
