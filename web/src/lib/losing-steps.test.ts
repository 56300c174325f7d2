import { expect, it } from 'vitest';
import type { JourneyChanges } from '../api.ts';
import { firstLosingEvent, lossesByEvent } from './losing-steps.ts';

const step = (eventId: string, inTransit = false) => ({ eventId, service: 's', name: eventId, inTransit, from: inTransit ? { eventId: 'e0', service: 's', name: 'e0' } : null });
const changes = (list: unknown[]) => ({ changes: list, truncated: false, changesTruncated: false }) as unknown as JourneyChanges;

it('opens on the step that lost a value first, else the one that changed one', () => {
  const answer = changes([
    { path: 'phone', kind: 'lost', steps: [step('e2')], stepCount: 1 },
    { path: 'email', kind: 'changed', steps: [step('e1')], stepCount: 1 },
  ]);
  expect(firstLosingEvent(answer)).toBe('e2');
  expect(firstLosingEvent(changes([{ path: 'email', kind: 'changed', steps: [step('e1')], stepCount: 1 }]))).toBe('e1');
  expect(firstLosingEvent(changes([{ path: 'x', kind: 'appeared', steps: [step('e1')], stepCount: 1 }]))).toBeNull();
  expect(firstLosingEvent(null)).toBeNull();
});

it('marks the steps that lost a value within themselves', () => {
  const answer = changes([
    { path: 'phone', kind: 'lost', steps: [step('e2'), step('e5', true)], stepCount: 2 },
    { path: 'fax', kind: 'lost', steps: [step('e2')], stepCount: 1 },
    { path: 'email', kind: 'changed', steps: [step('e1')], stepCount: 1 },
  ]);
  expect([...lossesByEvent(answer)]).toEqual([['e2', ['phone', 'fax']]]);
});
