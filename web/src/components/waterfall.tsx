// Each step a bar at its time with its duration, one lane per service; gaps show as empty space.
import type { EventRow } from '../api.ts';
import { showBidiControls } from '../lib/bidi.ts';
import { formatDuration } from '../lib/format.ts';
import { isFailure } from '../lib/timeline.ts';

const WIDTH = 1000;
const LANE = 26;
const LABEL = 150;
const MIN_BAR = 3;

export function Waterfall({ events, selectedId, onSelect, marked }: { events: EventRow[]; selectedId: string | null; onSelect: (id: string) => void; marked?: ReadonlySet<string> }) {
  if (events.length === 0) return null;
  const services = [...new Set(events.map((event) => event.service))];
  const starts = events.map((event) => Date.parse(event.eventTimestamp));
  const t0 = Math.min(...starts);
  const t1 = Math.max(...events.map((event, index) => starts[index]! + (event.durationMs ?? 0)));
  const span = Math.max(1, t1 - t0);
  const plot = WIDTH - LABEL - 10;
  const height = services.length * LANE + 24;
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
          const classes = ['step', isFailure(event) ? 'step-failed' : '', event.id === selectedId ? 'step-selected' : '', marked?.has(event.id) ? 'step-finding' : ''].join(' ');
          return (
            <rect key={event.id} className={classes} x={x} y={lane * LANE + 5} width={width} height={LANE - 10} onClick={() => onSelect(event.id)}>
              <title>{showBidiControls(`${event.service} · ${event.name} (${event.operation})`) + ` · ${formatDuration(event.durationMs)}`}</title>
            </rect>
          );
        })}
        <text className="axis" x={LABEL} y={height - 6}>
          0
        </text>
        <text className="axis" x={WIDTH - 10} y={height - 6} textAnchor="end">
          {formatDuration(span)}
        </text>
      </svg>
    </figure>
  );
}

/** SVG text cannot wrap: a service's name is cut to fit its lane's label, direction controls shown. */
function laneLabel(service: string): string {
  const shown = showBidiControls(service);
  return shown.length > 20 ? Array.from(shown).slice(0, 19).join('') + '…' : shown;
}
