// How data moves through a journey, step by step: within a step (its stored input against its
// stored output) and across a hand-off (what the previous step carried against what this step
// received). Both the field follow and the changes list walk these, so they never disagree.

import type { PayloadEvent } from '../query/journey-payloads.ts';

export interface StepRef {
  eventId: string;
  service: string;
  name: string;
}

/** One stored payload of a step: its input, or its output. */
export interface StoredSide {
  event: PayloadEvent;
  output: boolean;
}

/** One place where data could change: `before` and `after` are whole stored payloads. */
export interface Transition {
  /** Index of the step in the timeline (the step where `after` was observed). */
  step: number;
  /** The previous step carrying a payload for a hand-off; null within a step. */
  from: StepRef | null;
  before: StoredSide;
  after: StoredSide;
  /** Both payloads are the same stored text: nothing changed, no need to walk them. */
  same: boolean;
}

/** The payload of a side, parsed when first asked for. */
export function payloadOf(side: StoredSide): unknown {
  return side.output ? side.event.outputPayload : side.event.inputPayload;
}

/**
 * payloadOf that parses each stored text once in a walk over consecutive transitions: a step's
 * input is the `after` of its hand-off and the `before` of its own transition, its output the
 * `after` of its own and the `before` of the next hand-off; and a value handed on unchanged is
 * the same text as the previous step's output (a stored payload is parsed on each read). The
 * values are only read by the walks, so one parsed value can serve both.
 */
export function payloadReader(): (side: StoredSide) => unknown {
  const recent: Array<{ side: StoredSide; text: string | null | undefined; value: unknown }> = [];
  return (side) => {
    const text = textOf(side);
    for (const entry of recent) {
      if (entry.side === side || (typeof text === 'string' && entry.text === text)) return entry.value;
    }
    const value = payloadOf(side);
    recent.unshift({ side, text, value });
    if (recent.length > 2) recent.pop();
    return value;
  };
}

function textOf(side: StoredSide): string | null | undefined {
  return side.output ? side.event.outputText : side.event.inputText;
}

export function stepRef(event: PayloadEvent): StepRef {
  return { eventId: event.id, service: event.service, name: event.name };
}

/** A stored payload: the capture mode kept one (metadata-only keeps none). */
export function storedInput(event: PayloadEvent): boolean {
  return event.inputText !== undefined ? event.inputText !== null : event.inputPayload !== null;
}

export function storedOutput(event: PayloadEvent): boolean {
  return event.outputText !== undefined ? event.outputText !== null : event.outputPayload !== null;
}

/**
 * Transitions in timeline order: for each step, the hand-off into it first, then the step's own.
 * A step that stored no payload is skipped: it neither carries nor loses data, so the hand-off
 * goes from the last step that stored one. What a step carries on is its output, or its input
 * when it stored no output.
 */
export function listTransitions(events: readonly PayloadEvent[]): Transition[] {
  const transitions: Transition[] = [];
  let carried: { from: StepRef; side: StoredSide } | null = null;
  events.forEach((event, step) => {
    const hasIn = storedInput(event);
    const hasOut = storedOutput(event);
    if (!hasIn && !hasOut) return;
    const input: StoredSide = { event, output: false };
    const output: StoredSide = { event, output: true };
    const first = hasIn ? input : output;
    if (carried !== null) transitions.push(transition(step, carried.from, carried.side, first));
    if (hasIn && hasOut) transitions.push(transition(step, null, input, output));
    carried = { from: stepRef(event), side: hasOut ? output : input };
  });
  return transitions;
}

function transition(step: number, from: StepRef | null, before: StoredSide, after: StoredSide): Transition {
  return { step, from, before, after, same: sameStoredText(textOf(before), textOf(after)) };
}

/** Equal stored texts hold equal values (different texts may too: the walk decides then). */
export function sameStoredText(x: string | null | undefined, y: string | null | undefined): boolean {
  return typeof x === 'string' && x === y;
}
