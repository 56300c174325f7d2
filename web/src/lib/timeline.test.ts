import { describe, expect, it } from 'vitest';
import type { EventRow } from '../api.ts';
import { displayOrder, groupRetries, timelineEntries } from './timeline.ts';

function row(id: string, name: string, at: string, extra: Partial<EventRow> = {}): EventRow {
  return {
    id,
    operation: 'transformed',
    name,
    service: 'worker',
    eventTimestamp: at,
    receivedAt: at,
    durationMs: 100,
    hasInput: false,
    hasOutput: false,
    hasError: false,
    deploymentMetadata: null,
    ...extra,
  };
}

describe('timeline layout', () => {
  it('measures the gap from the end of the previous step and flags clock skew over two minutes', () => {
    const entries = timelineEntries([
      row('a', 'receive', '2026-01-01T00:00:00.000Z'),
      row('b', 'persist', '2026-01-01T00:00:01.000Z', { receivedAt: '2026-01-01T00:02:01.001Z' }),
      row('c', 'publish', '2026-01-01T00:00:01.050Z', { receivedAt: '2026-01-01T00:02:01.050Z' }),
    ]);
    expect(entries.map((entry) => entry.gapMs)).toEqual([null, 900, 0]);
    expect(entries.map((entry) => entry.skewMs)).toEqual([null, -120_001, null]);
  });

  it('groups a retried step with every attempt where its first attempt was, and keeps keyboard order equal to display order', () => {
    const events = [
      row('a', 'receive', '2026-01-01T00:00:00.000Z'),
      row('b', 'deliver', '2026-01-01T00:00:01.000Z', { hasError: true, operation: 'delivered' }),
      row('c', 'audit', '2026-01-01T00:00:02.000Z'),
      row('d', 'deliver', '2026-01-01T00:00:03.000Z', { operation: 'retried' }),
      row('e', 'receive', '2026-01-01T00:00:04.000Z'),
    ];
    const items = groupRetries(timelineEntries(events));
    expect(items.map((item) => (item.kind === 'event' ? item.entry.event.id : item.attempts.map((a) => a.event.id).join('+')))).toEqual([
      'a',
      'b+d',
      'c',
      'e',
    ]);
    expect(displayOrder(items).map((event) => event.id)).toEqual(['a', 'b', 'd', 'c', 'e']);
  });
});
