// "Follow a field": where one value is, step by step through a journey, and where it was lost
// or changed first — within a step or in transit between two steps (docs/forensics.md).

import type { JourneyPayloads, PayloadEvent } from '../query/journey-payloads.ts';
import { workSlicer, type Pause } from './cooperative.ts';
import { selectPath, type PathSegment, type Selection } from './field-path.ts';
import { stableKey } from './json-values.ts';
import { listTransitions, payloadReader, stepRef, storedInput, storedOutput, type StepRef } from './transitions.ts';

export type Verdict = 'absent' | 'appeared' | 'unchanged' | 'changed' | 'lost' | 'redacted' | 'not_captured';

/** The path in one stored payload; null when the step stored no such payload. */
export type Observation = { state: 'present'; value: unknown } | { state: 'missing' } | { state: 'redacted'; value: '[REDACTED]' };

export interface FollowedStep extends StepRef {
  operation: string;
  eventTimestamp: string;
  input: Observation | null;
  output: Observation | null;
  /** Input against output; with one of them stored, what that one shows; neither: not_captured. */
  verdict: Verdict;
  /** The previous step that stored a payload (its output, else its input) against this step's first stored payload. */
  handOff: { from: StepRef; verdict: Verdict } | null;
}

export interface Finding extends StepRef {
  verdict: 'lost' | 'changed';
  /** True when it happened between `from` and this step, not inside this step. */
  inTransit: boolean;
  from: StepRef | null;
}

export interface FollowedField {
  steps: FollowedStep[];
  /** The first loss; the interface highlights this step. */
  firstLoss: Finding | null;
  /** The first place where the value was lost or changed. */
  firstDifference: Finding | null;
  truncated: boolean;
}

export async function followField(journey: JourneyPayloads, segments: readonly PathSegment[], pause: Pause = workSlicer()): Promise<FollowedField> {
  const steps: FollowedStep[] = [];
  for (const event of journey.events) {
    await pause();
    steps.push(baseStep(event, segments));
  }
  let firstLoss: Finding | null = null;
  let firstDifference: Finding | null = null;
  const payloadOf = payloadReader();
  for (const transition of listTransitions(journey.events)) {
    await pause();
    const verdict = compare(selectPath(payloadOf(transition.before), segments), selectPath(payloadOf(transition.after), segments));
    const step = steps[transition.step]!;
    if (transition.from === null) step.verdict = verdict;
    else step.handOff = { from: transition.from, verdict };
    if (verdict !== 'lost' && verdict !== 'changed') continue;
    const finding: Finding = { ...stepRef(journey.events[transition.step]!), verdict, inTransit: transition.from !== null, from: transition.from };
    firstDifference ??= finding;
    if (verdict === 'lost') firstLoss ??= finding;
  }
  return { steps, firstLoss, firstDifference, truncated: journey.truncated };
}

function baseStep(event: PayloadEvent, segments: readonly PathSegment[]): FollowedStep {
  const input = storedInput(event) ? observe(selectPath(event.inputPayload, segments)) : null;
  const output = storedOutput(event) ? observe(selectPath(event.outputPayload, segments)) : null;
  const single = input ?? output;
  // Both stored: the input/output transition replaces this below.
  const verdict: Verdict = single === null ? 'not_captured' : single.state === 'missing' ? 'absent' : single.state === 'redacted' ? 'redacted' : 'unchanged';
  return {
    ...stepRef(event),
    operation: event.operation,
    eventTimestamp: event.eventTimestamp,
    input,
    output,
    verdict,
    handOff: null,
  };
}

function observe(selection: Selection): Observation {
  return selection.state === 'redacted' ? { state: 'redacted', value: '[REDACTED]' } : selection;
}

const hasValue = (selection: Selection) => selection.state === 'present' && selection.value !== null;

/** The verdict of one transition; a redacted side is never read as lost or changed. */
export function compare(before: Selection, after: Selection): Verdict {
  if (before.state === 'redacted' || after.state === 'redacted') return 'redacted';
  if (before.state === 'missing' && after.state === 'missing') return 'absent';
  if (hasValue(before) && !hasValue(after)) return 'lost';
  if (!hasValue(before) && hasValue(after)) return 'appeared';
  if (!hasValue(before)) return before.state === after.state ? 'unchanged' : 'absent';
  const same = stableKey((before as { value: unknown }).value) === stableKey((after as { value: unknown }).value);
  return same ? 'unchanged' : 'changed';
}
