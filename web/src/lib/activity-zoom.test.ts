import { expect, it } from 'vitest';
import type { Activity } from '../api.ts';
import { activityStart } from './activity-zoom.ts';

const until = Date.parse('2026-03-02T12:00:00.000Z');
const day: Activity = {
  since: new Date(until - 86_400_000).toISOString(),
  until: new Date(until).toISOString(),
  bucketSeconds: 1440,
  buckets: Array.from({ length: 60 }, (_, i) => ({ start: new Date(until - 86_400_000 + i * 1_440_000).toISOString(), active: 0, completed: i === 59 ? 3 : 0, failed: 0 })),
};

it('starts a default window’s chart just before its activity when the activity fills little of it', () => {
  const last = [new Date(until - 40_000).toISOString(), new Date(until - 2_000).toISOString()];
  expect(activityStart(day, last)).toBe(new Date(until - 40_000 - 4_000).toISOString());
  // Without every journey loaded, from the first bar holding one.
  expect(activityStart(day, null)).toBe(new Date(until - 1_440_000 - 144_000).toISOString());
});

it('keeps the whole window when the activity fills a quarter of it, or there is none', () => {
  expect(activityStart(day, [new Date(until - 23 * 3_600_000).toISOString()])).toBeNull();
  expect(activityStart({ ...day, buckets: day.buckets.map((b) => ({ ...b, completed: 0 })) }, null)).toBeNull();
  expect(activityStart(day, [])).toBeNull();
});
