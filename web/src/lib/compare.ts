// Reading a comparison of two journeys the way people ask it: "which one lost the value, where?"
// Two records of different entities always differ in their values (names, ids, e-mails, phone
// numbers); what matters is a value one journey carries and the other does not at the same step.
import type { ComparedPair, ComparedStep, DiffRow } from '../api.ts';

export type Side = 'A' | 'B';

/** A value one journey has and the other has not (missing or null) at the same step. */
export interface OneSided {
  pairIndex: number;
  step: ComparedStep;
  payload: 'input' | 'output';
  path: string;
  /** The journey without the value. */
  lacking: Side;
  value: unknown;
}

export interface PairReading {
  oneSided: OneSided[];
  /** Values present in both and different: they follow from the entities being different. */
  entityValues: (DiffRow & { payload: 'input' | 'output' })[];
  /** Differences of the steps themselves: only in one journey, moved, failed in one, payloads stored in one. */
  stepNotes: string[];
}

const present = (row: DiffRow, key: 'before' | 'after') => key in row && row[key] !== null && row[key] !== undefined;

const STATUS_NOTE: Record<ComparedPair['status'], string | null> = { matched: null, moved: 'moved', only_a: 'only in A', only_b: 'only in B' };

export function readPair(pair: ComparedPair, pairIndex: number): PairReading {
  const reading: PairReading = { oneSided: [], entityValues: [], stepNotes: [] };
  const status = STATUS_NOTE[pair.status];
  if (status) reading.stepNotes.push(status);
  if (pair.a && pair.b) {
    if (pair.a.hasError !== pair.b.hasError) reading.stepNotes.push(pair.b.hasError ? 'only B failed' : 'only A failed');
    if (pair.a.inputStored !== pair.b.inputStored || pair.a.outputStored !== pair.b.outputStored) reading.stepNotes.push('stored different payloads');
  }
  const step = pair.a ?? pair.b;
  for (const payload of ['input', 'output'] as const) {
    for (const row of (payload === 'input' ? pair.inputDiff : pair.outputDiff)?.rows ?? []) {
      // The diff reads A as before and B as after.
      const inA = present(row, 'before');
      const inB = present(row, 'after');
      if (inA !== inB && step) {
        reading.oneSided.push({ pairIndex, step, payload, path: row.path, lacking: inA ? 'B' : 'A', value: inA ? row.before : row.after });
      } else {
        reading.entityValues.push({ ...row, payload });
      }
    }
  }
  return reading;
}

/** True when the pair differs by more than the values that depend on the entity. */
export function differsInSubstance(reading: PairReading): boolean {
  return reading.oneSided.length > 0 || reading.stepNotes.length > 0;
}

/**
 * Each path's first one-sided difference, in timeline order, skipping those already one-sided at
 * an earlier step (a value lost once is missing at every later step too).
 */
export function firstLosses(readings: PairReading[]): OneSided[] {
  const seen = new Set<string>();
  const firsts: OneSided[] = [];
  for (const reading of readings) {
    for (const item of reading.oneSided) {
      const key = `${item.lacking} ${item.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      firsts.push(item);
    }
  }
  return firsts;
}

/** The one-line answer above the comparison. */
export function summarize(readings: PairReading[], firsts: OneSided[]): string {
  const stepDiffers = readings.filter((r) => r.stepNotes.length > 0).length;
  const entityOnly = readings.filter((r) => !differsInSubstance(r) && r.entityValues.length > 0).length;
  if (firsts.length === 0 && stepDiffers === 0) {
    return entityOnly === 0
      ? 'The two journeys do not differ.'
      : `Neither journey lost a value the other kept: ${entityOnly} ${entityOnly === 1 ? 'step differs' : 'steps differ'} only in values that depend on the entity.`;
  }
  const parts: string[] = [];
  const [first] = firsts;
  if (first) {
    const other = first.lacking === 'A' ? 'B' : 'A';
    parts.push(`${first.lacking} lost ${first.path || '(whole value)'} at ${first.step.service} · ${first.step.name} (${first.payload}); ${other} kept it`);
    if (firsts.length > 1) parts.push(`${firsts.length - 1} more ${firsts.length === 2 ? 'value is' : 'values are'} in one journey only`);
  }
  if (stepDiffers > 0) parts.push(`${stepDiffers} ${stepDiffers === 1 ? 'step differs' : 'steps differ'} in the steps themselves`);
  return parts.join('; ') + '.';
}
