// "What changed in this journey": every field path that was lost, renamed, changed, appeared or
// removed anywhere (within a step or across a hand-off), with the steps where it happened. These
// are the fields the interface offers to follow, so paths use `[*]` for array indices.

import type { JourneyPayloads } from '../query/journey-payloads.ts';
import { workSlicer, type Pause } from './cooperative.ts';
import { REDACTED } from './field-path.ts';
import { MAX_CHANGED_PATHS, MAX_STEPS_PER_CHANGE } from './limits.ts';
import { readDiff, type ReadDiffRow } from './read-diff.ts';
import { listTransitions, payloadReader, type StepRef } from './transitions.ts';

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
  const transitions = listTransitions(journey.events);
  const payloadOf = payloadReader();
  for (let order = 0; order < transitions.length; order++) {
    const transition = transitions[order]!;
    if (transition.same) continue;
    await pause();
    const diff = readDiff(payloadOf(transition.before), payloadOf(transition.after));
    changesTruncated ||= diff.truncated;
    const event = journey.events[transition.step]!;
    const here: ChangeStep = { eventId: event.id, service: event.service, name: event.name, inTransit: transition.from !== null, from: transition.from };
    for (const { key, kind, path, renamedFrom } of countedChanges(diff.rows)) {
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
