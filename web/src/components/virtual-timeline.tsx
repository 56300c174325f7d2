// The timeline of a long journey: only the rows in view are in the page (a journey of 10,000
// events drew 10,000 lines, and each "j" re-rendered them all). Rows are measured as drawn, the
// selected row is scrolled to, and reaching the last loaded row asks for the next page.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import type { TimelineEntry, TimelineItem } from '../lib/timeline.ts';
import { EventLine, outcome } from './timeline.tsx';
import { UserText } from './user-text.tsx';

/** Up to this many rows the timeline is drawn whole, as a plain list. */
export const VIRTUAL_FROM_ROWS = 200;
/** Rows drawn beyond each edge of the window, so a quick scroll shows no blank. */
const OVERSCAN = 10;
/** The next page is added while this many rows are still below the window, so scrolling meets no end. */
const NEAR_END_ROWS = 50;
/** A row's height before it is measured. */
const ESTIMATE_PX = 48;

type Row =
  | { kind: 'before'; key: string; node: ReactNode }
  | { kind: 'event'; key: string; entry: TimelineEntry; attempt?: number }
  | { kind: 'attempts'; key: string; item: Extract<TimelineItem, { kind: 'attempts' }> };

export function timelineRowCount(items: TimelineItem[]): number {
  return items.reduce((count, item) => count + (item.kind === 'event' ? 1 : item.attempts.length + 1), 0);
}

function present(node: ReactNode): boolean {
  return node !== null && node !== undefined && node !== false && !(Array.isArray(node) && node.length === 0);
}

function flatten(items: TimelineItem[], before?: (eventId: string) => ReactNode): Row[] {
  const rows: Row[] = [];
  const marker = (eventId: string) => {
    const node = before?.(eventId);
    if (present(node)) rows.push({ kind: 'before', key: `before ${eventId}`, node });
  };
  for (const item of items) {
    if (item.kind === 'event') {
      marker(item.entry.event.id);
      rows.push({ kind: 'event', key: item.entry.event.id, entry: item.entry });
    } else {
      for (const attempt of item.attempts) marker(attempt.event.id);
      rows.push({ kind: 'attempts', key: item.key, item });
      item.attempts.forEach((entry, index) => rows.push({ kind: 'event', key: entry.event.id, entry, attempt: index + 1 }));
    }
  }
  return rows;
}

export function VirtualTimeline({ items, selectedId, onSelect, before, lost, onNearEnd }: {
  items: TimelineItem[];
  selectedId: string | null;
  onSelect: (id: string) => void;
  before?: ((eventId: string) => ReactNode) | undefined;
  lost?: Map<string, string[]> | undefined;
  /** Called when the window nears the last loaded rows: the page adds the next events. */
  onNearEnd?: (() => void) | undefined;
}) {
  const rows = useMemo(() => flatten(items, before), [items, before]);
  // The rows scroll in a box of their own: the page around them stays put while they move.
  const box = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => box.current, estimateSize: () => ESTIMATE_PX, overscan: OVERSCAN, getItemKey: (index) => rows[index]!.key });
  const shown = virtualizer.getVirtualItems();

  // The selected row is brought into view, drawn or not ("j" moves past the window's edge).
  const selectedIndex = useMemo(() => rows.findIndex((row) => row.kind === 'event' && row.entry.event.id === selectedId), [rows, selectedId]);
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);

  const lastShown = shown.at(-1)?.index ?? -1;
  useEffect(() => {
    if (lastShown >= rows.length - 1 - NEAR_END_ROWS) onNearEnd?.();
  }, [lastShown, rows.length, onNearEnd]);

  return (
    <div ref={box} className="timeline-scroll">
    <ol className="timeline virtual" aria-label="Timeline (j/k or arrow keys move between events)" style={{ position: 'relative', height: virtualizer.getTotalSize() }}>
      {shown.map((virtual) => {
        const row = rows[virtual.index]!;
        return (
          <li
            key={virtual.key}
            data-index={virtual.index}
            ref={virtualizer.measureElement}
            className="vrow"
            style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${virtual.start}px)` }}
          >
            <ul className={row.kind === 'event' && row.attempt !== undefined ? 'vrow-inner vrow-attempt' : 'vrow-inner'}>
              {row.kind === 'before' ? row.node : null}
              {row.kind === 'event' ? (
                <EventLine entry={row.entry} attempt={row.attempt} selected={row.entry.event.id === selectedId} onSelect={onSelect} lost={lost?.get(row.entry.event.id)} scroll={false} />
              ) : null}
              {row.kind === 'attempts' ? (
                <li className="attempts">
                  <div className="attempts-heading">
                    <UserText text={row.item.service} /> · <UserText text={row.item.name} />: {row.item.attempts.length} attempts, {outcome(row.item.attempts)}
                  </div>
                </li>
              ) : null}
            </ul>
          </li>
        );
      })}
    </ol>
    </div>
  );
}
