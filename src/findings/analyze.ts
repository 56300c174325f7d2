// The findings of one journey, computed from all its events at once: the definition the
// analyzer's incremental walk (incremental-walk.ts) must give for any split of the journey into
// passes (incremental.int.test.ts). Lost and changed fields come from the forensics capability's
// own walk (listJourneyChanges, the "What changed" route), so the findings and the forensics
// routes agree; the other kinds are read from the timeline and, when the project states one, the
// entity type's expectation.

import { listJourneyChanges } from '../forensics/journey-changes.ts';
import type { JourneyPayloads, PayloadEvent } from '../query/journey-payloads.ts';
import { parseTimestamp } from '../protocol/timestamps.ts';
import type { Expectation } from './expectation-input.ts';
import { MAX_FINDINGS_PER_JOURNEY } from './limits.ts';

export const FINDING_KINDS = ['lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step'] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export interface FindingStep {
  eventId: string;
  service: string;
  name: string;
}

export interface JourneyFinding {
  kind: FindingKind;
  /** The field path (lost, changed) or the name of the step that was skipped (skipped_step). */
  path: string | null;
  /** Where it was observed: the losing step, the repeated step, the failed step... */
  step: FindingStep | null;
  /** Lost or changed between `from` and `step`, not inside `step`. */
  inTransit: boolean;
  /** The step the value left (in transit), the first recording of a duplicated step, the step before an over-long gap. */
  from: FindingStep | null;
}

export interface AnalysisInput {
  payloads: JourneyPayloads;
  /** When the journey started (its first event), milliseconds since the epoch. */
  startedAtMs: number;
  expectation: Expectation | null;
  nowMs: number;
}

const ref = (event: PayloadEvent): FindingStep => ({ eventId: event.id, service: event.service, name: event.name });

export async function analyzeJourney(input: AnalysisInput): Promise<JourneyFinding[]> {
  const findings: JourneyFinding[] = [];
  const { changes } = await listJourneyChanges(input.payloads);
  for (const change of changes) {
    if (change.kind !== 'lost' && change.kind !== 'changed') continue;
    for (const step of change.steps) {
      findings.push({
        kind: change.kind,
        path: change.path,
        step: { eventId: step.eventId, service: step.service, name: step.name },
        inTransit: step.inTransit,
        from: step.from,
      });
    }
  }
  const events = input.payloads.events;
  findings.push(...duplicatedSteps(events), ...failedSteps(events));
  if (input.expectation !== null) findings.push(...againstExpectation(events, input.startedAtMs, input.expectation, input.nowMs));
  return findings.slice(0, MAX_FINDINGS_PER_JOURNEY);
}

/**
 * The same step (service and name) recorded again with other content, or a delivery repeated
 * after one that succeeded. A retry is recorded as `retried`, which is never a duplicate.
 */
function duplicatedSteps(events: readonly PayloadEvent[]): JourneyFinding[] {
  const seen = new Map<string, PayloadEvent>();
  const findings: JourneyFinding[] = [];
  for (const event of events) {
    if (event.operation === 'retried') continue;
    const key = `${event.service}\u0000${event.name}\u0000${event.operation}`;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, event);
      continue;
    }
    const deliveredTwice = event.operation === 'delivered' && !first.hasError;
    if (deliveredTwice || !sameContent(first, event)) findings.push({ kind: 'duplicated', path: null, step: ref(event), inTransit: false, from: ref(first) });
  }
  return findings;
}

function sameContent(a: PayloadEvent, b: PayloadEvent): boolean {
  return a.hasError === b.hasError && a.inputText === b.inputText && a.outputText === b.outputText;
}

function failedSteps(events: readonly PayloadEvent[]): JourneyFinding[] {
  return events.filter((event) => event.operation === 'failed').map((event) => ({ kind: 'failed', path: null, step: ref(event), inTransit: false, from: null }));
}

/**
 * overdue: past the deadline without the final step, or a gap between two steps (or since the
 * last one, while the final step has not come) over the longest allowed. skipped_step: the final
 * step reached without a step the expectation requires.
 */
export function againstExpectation(events: readonly PayloadEvent[], startedAtMs: number, expectation: Expectation, nowMs: number): JourneyFinding[] {
  const findings: JourneyFinding[] = [];
  const finalEvent = events.find((event) => event.name === expectation.finalStep);
  const deadlineMs = expectation.deadlineSeconds === null ? null : expectation.deadlineSeconds * 1000;
  const gapMs = expectation.maxGapSeconds === null ? null : expectation.maxGapSeconds * 1000;
  if (finalEvent === undefined && deadlineMs !== null && nowMs > startedAtMs + deadlineMs) {
    findings.push({ kind: 'overdue', path: null, step: null, inTransit: false, from: events.length > 0 ? ref(events.at(-1)!) : null });
  } else if (gapMs !== null) {
    let previous: PayloadEvent | null = null;
    for (const event of events) {
      if (previous !== null && timeOf(event) - timeOf(previous) > gapMs) {
        findings.push({ kind: 'overdue', path: null, step: ref(event), inTransit: false, from: ref(previous) });
        break;
      }
      previous = event;
    }
    const last = events.at(-1);
    if (findings.length === 0 && finalEvent === undefined && last !== undefined && nowMs - timeOf(last) > gapMs) {
      findings.push({ kind: 'overdue', path: null, step: null, inTransit: false, from: ref(last) });
    }
  }
  if (finalEvent !== undefined) {
    const names = new Set(events.map((event) => event.name));
    for (const step of expectation.steps) {
      if (!step.optional && !names.has(step.name)) findings.push({ kind: 'skipped_step', path: step.name, step: ref(finalEvent), inTransit: false, from: null });
    }
  }
  return findings;
}

function timeOf(event: PayloadEvent): number {
  return parseTimestamp(event.eventTimestamp) ?? 0;
}
