// Which steps of a journey lost a value, from the /changes answer: the page opens on the first
// one and marks each on the timeline and the waterfall.
import type { JourneyChanges } from '../api.ts';

/** Fields lost within a step, by its event id (hand-off losses have their own line on the timeline). */
export function lossesByEvent(changes: JourneyChanges | null): Map<string, string[]> {
  const byEvent = new Map<string, string[]>();
  for (const change of changes?.changes ?? []) {
    if (change.kind !== 'lost') continue;
    for (const step of change.steps) {
      if (step.inTransit) continue;
      byEvent.set(step.eventId, [...(byEvent.get(step.eventId) ?? []), change.path || '(whole value)']);
    }
  }
  return byEvent;
}

/** The step to open with: where the first lost value was lost, else where the first value changed. */
export function firstLosingEvent(changes: JourneyChanges | null): string | null {
  const list = changes?.changes ?? [];
  const change = list.find((c) => c.kind === 'lost') ?? list.find((c) => c.kind === 'changed');
  return change?.steps[0]?.eventId ?? null;
}
