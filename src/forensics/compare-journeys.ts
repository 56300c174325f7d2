// "Compare two journeys": the two timelines aligned by (service, step name, operation) with a
// longest common subsequence, so that a missing step, an extra retry or a reordering shows as
// such; for every aligned pair, the read-time diff of inputs and of outputs, durations side by side.

import type { JourneyPayloads, PayloadEvent } from '../query/journey-payloads.ts';
import { alignByKeys } from './array-align.ts';
import { workSlicer, type Pause } from './cooperative.ts';
import { MAX_COMPARE_DIFF_ROWS } from './limits.ts';
import { readDiff, type ReadDiff } from './read-diff.ts';
import { sameStoredText, storedInput, storedOutput } from './transitions.ts';

export interface ComparedStep {
  /** Position in its journey's timeline (0-based). */
  index: number;
  eventId: string;
  service: string;
  name: string;
  operation: string;
  eventTimestamp: string;
  durationMs: number | null;
  hasError: boolean;
  inputStored: boolean;
  outputStored: boolean;
}

/**
 * `matched`: same step in the same place; `moved`: the same step at another place (reordered);
 * `only_a` / `only_b`: a step the other journey does not have (missing, or an extra retry).
 */
export type PairStatus = 'matched' | 'moved' | 'only_a' | 'only_b';

export interface ComparedPair {
  status: PairStatus;
  a: ComparedStep | null;
  b: ComparedStep | null;
  /** a's stored input against b's; null unless both stored one. */
  inputDiff: ReadDiff | null;
  outputDiff: ReadDiff | null;
  /** Anything differs: status, a diff row, which payloads were stored, or the error flag. */
  differs: boolean;
}

export interface JourneyComparison {
  pairs: ComparedPair[];
  /** Index in `pairs` of the first pair that differs. */
  firstDifference: number | null;
  /** False when the timelines were too long to align fully: past their common start and end, steps are listed unmatched. */
  exactAlignment: boolean;
  /** The diffs held more than MAX_COMPARE_DIFF_ROWS rows: later pairs carry their first rows only. */
  diffRowsTruncated: boolean;
}

const stepKey = (event: PayloadEvent) => JSON.stringify([event.service, event.name, event.operation]);

export async function compareJourneys(a: JourneyPayloads, b: JourneyPayloads, pause: Pause = workSlicer()): Promise<JourneyComparison> {
  const { steps, exact } = alignByKeys(a.events.map(stepKey), b.events.map(stepKey), false);
  // Unmatched steps present in both journeys were reordered: pair them, shown at b's place.
  const movedFrom = new Map<number, number>();
  const waiting = new Map<string, number[]>();
  for (const step of steps) if (step.kind === 'removed') pushTo(waiting, stepKey(a.events[step.from]!), step.from);
  for (const step of steps) {
    if (step.kind !== 'added') continue;
    const from = waiting.get(stepKey(b.events[step.to]!))?.shift();
    if (from !== undefined) movedFrom.set(step.to, from);
  }
  const moved = new Set(movedFrom.values());
  const pairs: ComparedPair[] = [];
  for (const step of steps) {
    await pause();
    if (step.kind === 'pair') pairs.push(pairOf('matched', a.events, step.from, b.events, step.to));
    else if (step.kind === 'removed' && !moved.has(step.from)) pairs.push(pairOf('only_a', a.events, step.from, b.events, null));
    else if (step.kind === 'added') {
      const from = movedFrom.get(step.to);
      pairs.push(from === undefined ? pairOf('only_b', a.events, null, b.events, step.to) : pairOf('moved', a.events, from, b.events, step.to));
    }
  }
  const first = pairs.findIndex((pair) => pair.differs);
  const diffRowsTruncated = fitDiffRows(pairs, MAX_COMPARE_DIFF_ROWS);
  return { pairs, firstDifference: first === -1 ? null : first, exactAlignment: exact, diffRowsTruncated };
}

/**
 * Keeps at most `budget` diff rows over all pairs, in pair order; a diff past the budget keeps
 * what fits and is flagged truncated. `differs` was decided on every row. True when rows were cut.
 */
function fitDiffRows(pairs: ComparedPair[], budget: number): boolean {
  let left = budget;
  let cut = false;
  const fit = (diff: ReadDiff | null): ReadDiff | null => {
    if (diff === null || diff.rows.length <= left) {
      left -= diff?.rows.length ?? 0;
      return diff;
    }
    cut = true;
    const rows = diff.rows.slice(0, left);
    left = 0;
    return { rows, truncated: true };
  };
  for (const pair of pairs) {
    pair.inputDiff = fit(pair.inputDiff);
    pair.outputDiff = fit(pair.outputDiff);
  }
  return cut;
}

function pushTo(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function pairOf(status: PairStatus, aEvents: readonly PayloadEvent[], aIndex: number | null, bEvents: readonly PayloadEvent[], bIndex: number | null): ComparedPair {
  const x = aIndex === null ? null : aEvents[aIndex]!;
  const y = bIndex === null ? null : bEvents[bIndex]!;
  const inputDiff = x && y && storedInput(x) && storedInput(y) ? diffStored(x.inputText, y.inputText, () => readDiff(x.inputPayload, y.inputPayload)) : null;
  const outputDiff = x && y && storedOutput(x) && storedOutput(y) ? diffStored(x.outputText, y.outputText, () => readDiff(x.outputPayload, y.outputPayload)) : null;
  const differs =
    status !== 'matched' ||
    x!.hasError !== y!.hasError ||
    storedInput(x!) !== storedInput(y!) ||
    storedOutput(x!) !== storedOutput(y!) ||
    (inputDiff?.rows.length ?? 0) > 0 ||
    (outputDiff?.rows.length ?? 0) > 0;
  return { status, a: x && view(x, aIndex!), b: y && view(y, bIndex!), inputDiff, outputDiff, differs };
}

/** Equal stored texts differ nowhere: their payloads are neither parsed nor walked. */
function diffStored(x: string | null | undefined, y: string | null | undefined, diff: () => ReadDiff): ReadDiff {
  return sameStoredText(x, y) ? { rows: [], truncated: false } : diff();
}

function view(event: PayloadEvent, index: number): ComparedStep {
  return {
    index,
    eventId: event.id,
    service: event.service,
    name: event.name,
    operation: event.operation,
    eventTimestamp: event.eventTimestamp,
    durationMs: event.durationMs,
    hasError: event.hasError,
    inputStored: storedInput(event),
    outputStored: storedOutput(event),
  };
}
