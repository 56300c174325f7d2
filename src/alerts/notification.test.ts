import { describe, expect, it } from 'vitest';
import { notificationBody, type Notification } from './notification.ts';

const firing = (windowComplete: boolean): Notification => ({
  notification: 'firing',
  rule: { id: 'r', projectId: 'p', name: 'Lost phone', kind: 'lost', path: 'customer.phone', entityType: null, environment: null, threshold: { count: 1, windowMinutes: 1 } },
  windowStart: '2026-03-01T12:00:00.000Z',
  windowEnd: '2026-03-01T12:01:00.000Z',
  count: 100,
  countedAt: '2026-03-01T12:00:20.000Z',
  windowComplete,
  journeys: ['jrn-1'],
});

describe('notification bodies', () => {
  it('say when the count was taken and whether the window was final', () => {
    expect(JSON.parse(notificationBody('webhook', firing(false), 'd'))).toMatchObject({ deliveryId: 'd', count: 100, countedAt: '2026-03-01T12:00:20.000Z', windowComplete: false });
    expect(JSON.parse(notificationBody('slack', firing(false), 'd')).text).toMatch(
      /^jtrace: 100 lost customer\.phone findings \(rule "Lost phone", 2026-03-01T12:00:00\.000Z to 2026-03-01T12:01:00\.000Z, so far: counted at 2026-03-01T12:00:20\.000Z\)\n/,
    );
    expect(JSON.parse(notificationBody('slack', firing(true), 'd')).text).toMatch(/^jtrace: 100 lost customer\.phone findings \(rule "Lost phone", 2026-03-01T12:00:00\.000Z to 2026-03-01T12:01:00\.000Z\)\n/);
  });
});
