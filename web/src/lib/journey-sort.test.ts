import { expect, it } from 'vitest';
import { journeyDurationMs, sortFromParam, sortJourneys } from './journey-sort.ts';

const j = (id: string, start: number, last: number) => ({ id, startedAt: new Date(start).toISOString(), lastEventAt: new Date(last).toISOString() });

it('sorts by start or duration, newest and longest first, keeping the API order on ties and for last activity', () => {
  const items = [j('a', 5_000, 9_000), j('b', 1_000, 8_000), j('c', 6_000, 7_000), j('d', 2_000, 6_000)];
  expect(sortJourneys(items, 'last').map((x) => x.id)).toEqual(['a', 'b', 'c', 'd']);
  expect(sortJourneys(items, 'start').map((x) => x.id)).toEqual(['c', 'a', 'd', 'b']);
  expect(sortJourneys(items, 'duration').map((x) => x.id)).toEqual(['b', 'a', 'd', 'c']);
  expect(journeyDurationMs(items[1]!)).toBe(7_000);
  expect(sortFromParam('duration')).toBe('duration');
  expect(sortFromParam('nonsense')).toBe('last');
  expect(sortFromParam(null)).toBe('last');
});
