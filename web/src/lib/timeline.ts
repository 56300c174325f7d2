// How a journey's events are laid out: gaps, clock skew, retries grouped by step.
import type { EventRow } from '../api.ts';

/** An event stamped this far from its arrival is flagged: one of the clocks is wrong. */
export const CLOCK_SKEW_MS = 2 * 60 * 1000;

export interface TimelineEntry {
  event: EventRow;
  /** Milliseconds since the end of the previous event (or its start when it has no duration). */
  gapMs: number | null;
  skewMs: number | null;
  failed: boolean;
}

export interface AttemptGroup {
  kind: 'attempts';
  key: string;
  service: string;
  name: string;
  attempts: TimelineEntry[];
}

export type TimelineItem = { kind: 'event'; entry: TimelineEntry } | AttemptGroup;

export function isFailure(event: EventRow): boolean {
  return event.hasError || event.operation === 'failed';
}

export function clockSkewMs(event: EventRow): number | null {
  const skew = Date.parse(event.eventTimestamp) - Date.parse(event.receivedAt);
  return Math.abs(skew) > CLOCK_SKEW_MS ? skew : null;
}

export function timelineEntries(events: EventRow[]): TimelineEntry[] {
  let previousEnd: number | null = null;
  return events.map((event) => {
    const start = Date.parse(event.eventTimestamp);
    const gapMs = previousEnd === null ? null : Math.max(0, start - previousEnd);
    previousEnd = Math.max(previousEnd ?? start, start + (event.durationMs ?? 0));
    return { event, gapMs, skewMs: clockSkewMs(event), failed: isFailure(event) };
  });
}

const stepKey = (event: EventRow) => `${event.service}\u0000${event.name}`;

/**
 * A step run more than once where some run failed or says `retried` is shown as one group of
 * attempts, placed where its first attempt happened; every other event stands alone.
 */
export function groupRetries(entries: TimelineEntry[]): TimelineItem[] {
  const byStep = new Map<string, TimelineEntry[]>();
  for (const entry of entries) {
    const key = stepKey(entry.event);
    byStep.set(key, [...(byStep.get(key) ?? []), entry]);
  }
  const retried = new Set(
    [...byStep].filter(([, runs]) => runs.length > 1 && runs.some((run) => run.failed || run.event.operation === 'retried')).map(([key]) => key),
  );
  const items: TimelineItem[] = [];
  const placed = new Set<string>();
  for (const entry of entries) {
    const key = stepKey(entry.event);
    if (!retried.has(key)) {
      items.push({ kind: 'event', entry });
    } else if (!placed.has(key)) {
      placed.add(key);
      items.push({ kind: 'attempts', key, service: entry.event.service, name: entry.event.name, attempts: byStep.get(key)! });
    }
  }
  return items;
}

/** Events in the order the timeline shows them, for keyboard moves. */
export function displayOrder(items: TimelineItem[]): EventRow[] {
  return items.flatMap((item) => (item.kind === 'event' ? [item.entry.event] : item.attempts.map((attempt) => attempt.event)));
}
