// How data moves through a journey, step by step: within a step (its stored input against its
// stored output) and across a hand-off (what the previous step carried against what this step
// received). Both the field follow and the changes list walk these, so they never disagree.

import type { PayloadEvent } from '../query/journey-payloads.ts';

export interface StepRef {
  eventId: string;
  service: string;
  name: string;
}

/** One place where data could change: `before` and `after` are whole stored payloads. */
export interface Transition {
  /** Index of the step in the timeline (the step where `after` was observed). */
  step: number;
  /** The previous step carrying a payload for a hand-off; null within a step. */
  from: StepRef | null;
  before: unknown;
  after: unknown;
}

export function stepRef(event: PayloadEvent): StepRef {
  return { eventId: event.id, service: event.service, name: event.name };
}

/** A stored payload: the capture mode kept one (metadata-only keeps none). */
export function storedInput(event: PayloadEvent): boolean {
  return event.inputPayload !== null;
}

export function storedOutput(event: PayloadEvent): boolean {
  return event.outputPayload !== null;
}

/**
 * Transitions in timeline order: for each step, the hand-off into it first, then the step's own.
 * A step that stored no payload is skipped: it neither carries nor loses data, so the hand-off
 * goes from the last step that stored one. What a step carries on is its output, or its input
 * when it stored no output.
 */
export function listTransitions(events: readonly PayloadEvent[]): Transition[] {
  const transitions: Transition[] = [];
  let carried: { from: StepRef; value: unknown } | null = null;
  events.forEach((event, step) => {
    const hasIn = storedInput(event);
    const hasOut = storedOutput(event);
    if (!hasIn && !hasOut) return;
    const first = hasIn ? event.inputPayload : event.outputPayload;
    if (carried !== null) transitions.push({ step, from: carried.from, before: carried.value, after: first });
    if (hasIn && hasOut) transitions.push({ step, from: null, before: event.inputPayload, after: event.outputPayload });
    carried = { from: stepRef(event), value: hasOut ? event.outputPayload : event.inputPayload };
  });
  return transitions;
}
