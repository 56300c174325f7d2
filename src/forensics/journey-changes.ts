// "What changed in this journey": every field path that was lost, renamed, changed, appeared or
// removed anywhere (within a step or across a hand-off), with the steps where it happened. These
// are the fields the interface offers to follow, so paths use `[*]` for array indices.

import type { JourneyPayloads, PayloadEvent } from '../query/journey-payloads.ts';
import { workSlicer, type Pause } from './cooperative.ts';
import { REDACTED } from './field-path.ts';
import { MAX_CHANGED_PATHS, MAX_STEPS_PER_CHANGE } from './limits.ts';
import { readDiff, type ReadDiffRow } from './read-diff.ts';
import { listTransitions, payloadReader, storedInput, storedOutput, type StepRef } from './transitions.ts';

export type ChangeKind = 'lost' | 'renamed' | 'changed' | 'appeared' | 'removed';

export interface ChangeStep extends StepRef {
  inTransit: boolean;
  /** The step the value left, for a change in transit. */
  from: StepRef | null;
}

export interface JourneyChange {
  /** Followable path (indices as `[*]`). */
  path: string;
  kind: ChangeKind;
  renamedFrom?: string;
  /** Where it happened, in timeline order; at most MAX_STEPS_PER_CHANGE. */
  steps: ChangeStep[];
  stepCount: number;
}

export interface JourneyChanges {
  changes: JourneyChange[];
  /** Journey over the event limit: only its first events were read. */
  truncated: boolean;
  /** Something was left out: a step's diff over its row cap, or paths over MAX_CHANGED_PATHS. */
  changesTruncated: boolean;
}

const KIND: Record<ReadDiffRow['kind'], ChangeKind> = { lost: 'lost', renamed: 'renamed', changed: 'changed', added: 'appeared', removed: 'removed' };
const ORDER: Record<ChangeKind, number> = { lost: 0, renamed: 1, changed: 2, appeared: 3, removed: 4 };

export async function listJourneyChanges(journey: JourneyPayloads, pause: Pause = workSlicer()): Promise<JourneyChanges> {
  // Each change with where it was first seen and the transition that last counted it, beside it
  // rather than in it: the answer's objects are then built once, never copied without these.
  const byKey = new Map<string, { change: JourneyChange; first: number; lastOrder: number }>();
  let changesTruncated = false;
  let order = -1;
  for (const transition of changedTransitions(journey.events)) {
    order++;
    await pause();
    changesTruncated ||= transition.truncated;
    const event = journey.events[transition.step]!;
    const here: ChangeStep = { eventId: event.id, service: event.service, name: event.name, inTransit: transition.from !== null, from: transition.from };
    for (const { key, kind, path, renamedFrom } of transition.changes) {
      let tally = byKey.get(key);
      if (tally === undefined) {
        if (byKey.size >= MAX_CHANGED_PATHS) {
          changesTruncated = true;
          continue;
        }
        const change: JourneyChange = renamedFrom === undefined
          ? { path, kind, steps: [], stepCount: 0 }
          : { path, kind, renamedFrom, steps: [], stepCount: 0 };
        tally = { change, first: order, lastOrder: -1 };
        byKey.set(key, tally);
      }
      // Several elements of one array change in one transition: one step.
      if (tally.lastOrder === order) continue;
      tally.lastOrder = order;
      tally.change.stepCount++;
      if (tally.change.steps.length < MAX_STEPS_PER_CHANGE) tally.change.steps.push(here);
    }
  }
  const changes = [...byKey.values()]
    .sort((x, y) => ORDER[x.change.kind] - ORDER[y.change.kind] || x.first - y.first)
    .map((tally) => tally.change);
  return { changes, truncated: journey.truncated, changesTruncated };
}

/** A transition whose stored payloads differ, with the changes it counts (in diff order). */
export interface ChangedTransition {
  /** Index in the events walked of the step where it was observed. */
  step: number;
  /** The previous step carrying a payload, for a hand-off; null within a step. */
  from: StepRef | null;
  changes: CountedChange[];
  /** A diff row was left out (over the diff's row cap). */
  truncated: boolean;
}

/**
 * The transitions of `events` whose payloads differ, in timeline order, each with its counted
 * changes, computed as they are asked for; those observed before `firstStep` are left out (a walk
 * going on from `events[0]`, the step the next hand-off leaves from, walked before). The changes
 * list and the findings analyzer's incremental walk (src/findings/incremental-walk.ts) both walk
 * these, so they count the same changes at the same steps.
 */
export function* changedTransitions(events: readonly PayloadEvent[], firstStep = 0): Generator<ChangedTransition> {
  const payloadOf = payloadReader();
  for (const transition of listTransitions(events)) {
    if (transition.same || transition.step < firstStep) continue;
    const diff = readDiff(payloadOf(transition.before), payloadOf(transition.after));
    yield { step: transition.step, from: transition.from, changes: countedChanges(diff.rows), truncated: diff.truncated };
  }
}

/** The event stored an input or an output: a hand-off can leave from it. */
export function storesPayload(event: PayloadEvent): boolean {
  return storedInput(event) || storedOutput(event);
}

/** One row of a transition's diff as the changes list counts it, under its key (kind, path, old path). */
export interface CountedChange {
  key: string;
  kind: ChangeKind;
  path: string;
  renamedFrom?: string;
}

/**
 * The rows of one transition's diff that count as changes, in diff order: the changes list and
 * the findings analyzer's incremental walk (src/findings/incremental-walk.ts) both count these.
 */
export function countedChanges(rows: readonly ReadDiffRow[]): CountedChange[] {
  const counted: CountedChange[] = [];
  for (const row of rows) {
    // A value redacted on one side is a redaction, not a change of the data.
    if (row.before === REDACTED || row.after === REDACTED) continue;
    // A null whose key went away carried nothing.
    if (row.kind === 'removed' && !row.path.endsWith(']')) continue;
    const path = followable(row.path);
    const renamedFrom = row.renamedFrom === undefined ? undefined : followable(row.renamedFrom);
    const key = `${row.kind}\u0000${path}\u0000${renamedFrom ?? ''}`;
    counted.push(renamedFrom === undefined ? { key, kind: KIND[row.kind], path } : { key, kind: KIND[row.kind], path, renamedFrom });
  }
  return counted;
}

/** `items[3].sku` → `items[*].sku`: the field, whichever element it sits in. */
export function followable(path: string): string {
  return path.includes('[') ? path.replace(/\[\d+\]/g, '[*]') : path;
}
