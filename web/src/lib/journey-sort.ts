// Orders of the journeys list. The API lists by last activity; the other orders are applied to
// the journeys loaded, which is every matching journey when the list has a single page.
import type { JourneySummary } from '../api.ts';

export const SORTS = { last: 'Last activity', start: 'Started', duration: 'Duration' } as const;
export type SortKey = keyof typeof SORTS;

export function sortFromParam(value: string | null): SortKey {
  return value !== null && value in SORTS ? (value as SortKey) : 'last';
}

export function journeyDurationMs(journey: Pick<JourneySummary, 'startedAt' | 'lastEventAt'>): number {
  return Math.max(0, Date.parse(journey.lastEventAt) - Date.parse(journey.startedAt));
}

/** Newest or longest first; ties keep the API's order (last activity, then journey id). */
export function sortJourneys<T extends Pick<JourneySummary, 'startedAt' | 'lastEventAt'>>(items: T[], sort: SortKey): T[] {
  if (sort === 'last') return items;
  const key = sort === 'start' ? (j: T) => Date.parse(j.startedAt) : journeyDurationMs;
  return [...items].sort((a, b) => key(b) - key(a));
}
