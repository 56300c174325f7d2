import { describe, expect, it } from 'vitest';
import { activitySummary, apiParams, filtersFromParams, filtersSummary } from './journeys-filters.ts';

const NOW = Date.parse('2026-03-10T12:00:00.000Z');

describe('journey list filters in the URL', () => {
  it('measures a relative window from now and pins it with `at` while paging', () => {
    expect(filtersFromParams(new URLSearchParams('window=hour'), NOW).since).toBe('2026-03-10T11:00:00.000Z');
    expect(filtersFromParams(new URLSearchParams(''), NOW).since).toBe('2026-03-09T12:00:00.000Z');
    expect(filtersFromParams(new URLSearchParams('window=week&at=2026-03-01T00:00:00.000Z'), NOW).since).toBe('2026-03-01T00:00:00.000Z');
  });

  it('keeps every filter and sends no window name to the API', () => {
    const filters = filtersFromParams(
      new URLSearchParams('window=custom&since=2026-03-01T00:00:00Z&until=2026-03-02T00:00:00Z&status=failed&entityType=contact&q=%20ab%20'),
      NOW,
    );
    expect(apiParams(filters)).toEqual({
      since: '2026-03-01T00:00:00.000Z',
      until: '2026-03-02T00:00:00.000Z',
      status: 'failed',
      environment: undefined,
      service: undefined,
      entityType: 'contact',
      q: 'ab',
    });
  });
});

describe('folded summaries', () => {
  it('names the window and counts the other filters', () => {
    const base = filtersFromParams(new URLSearchParams('window=week'));
    expect(filtersSummary(base)).toBe('last week');
    expect(filtersSummary(filtersFromParams(new URLSearchParams('window=day&status=failed&finding=lost&path=a.b')))).toBe('last day, 2 more');
  });

  it('counts the chart’s journeys by status', () => {
    expect(activitySummary({ buckets: [{ completed: 3, active: 1, failed: 0 }, { completed: 2, active: 0, failed: 4 }] })).toBe('5 completed, 1 active, 4 failed');
  });
});
