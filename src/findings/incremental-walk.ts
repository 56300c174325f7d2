// The findings of a journey, walked incrementally: a pass goes on from the state the last one
// kept (walk-state.ts) over the events stored since, in timeline order, and gives exactly what
// analyzing the whole journey at once gives (analyze.ts, the reference; incremental.int.test.ts
// checks them equal for any split of a journey into passes). docs/findings.md, "Incremental
// analysis".
//
// The full list is ordered by kind (lost, changed, duplicated, failed, then the expectation's),
// lost and changed grouped by field in the order each was first seen, and cut at
// MAX_FINDINGS_PER_JOURNEY. Events after the walked ones only ever add findings, each at the end
// of its kind, or of its field's group: so the first 100 of the new list are the first 100 of
// the kept list with the new findings put in their places. The expectation's findings depend on
// the clock and on what is still missing; they are worked out again at every pass from the state.

import { changedTransitions, storesPayload } from '../forensics/journey-changes.ts';
import { MAX_CHANGED_PATHS } from '../forensics/limits.ts';
import { parseTimestamp } from '../protocol/timestamps.ts';
import type { PayloadEvent, PositionedEvent } from '../query/journey-payloads.ts';
import type { FindingKind, FindingStep, JourneyFinding } from './analyze.ts';
import type { Expectation } from './expectation-input.ts';
import { MAX_FINDINGS_PER_JOURNEY } from './limits.ts';
import type { Hasher, WalkState } from './walk-state.ts';

/** Kinds in the order of the list; the expectation's come last and are not kept in the state. */
const SECTION: Partial<Record<FindingKind, number>> = { lost: 0, changed: 1, duplicated: 2, failed: 3 };

const ref = (event: PayloadEvent): FindingStep => ({ eventId: event.id, service: event.service, name: event.name });

/**
 * Walks `events` (the journey's next events in timeline order) on from `state`; `carried` is the
 * event the state names as the last that stored a payload, read again for the hand-off into the
 * first new one. Changes the state in place.
 */
export function advanceWalk(state: WalkState, carried: PayloadEvent | null, positioned: readonly PositionedEvent[], expectation: Expectation | null, hash: Hasher): void {
  const events = positioned.map((p) => p.event);
  walkChanges(state, carried, events, hash);
  walkSteps(state, events, hash);
  walkTimeline(state, events, expectation);
  // What the next hand-off leaves from: the last step that stored a payload.
  for (let i = positioned.length - 1; i >= 0; i--) {
    const { event, position } = positioned[i]!;
    if (!storesPayload(event)) continue;
    state.carried = { id: event.id, receivedAt: position.receivedAt };
    break;
  }
}

function place(list: JourneyFinding[], finding: JourneyFinding, at: number): void {
  if (at >= MAX_FINDINGS_PER_JOURNEY) return;
  list.splice(at, 0, finding);
  if (list.length > MAX_FINDINGS_PER_JOURNEY) list.length = MAX_FINDINGS_PER_JOURNEY;
}

/** Just after the last finding of this kind or an earlier one: where a new one of the kind goes. */
function endOfSection(list: readonly JourneyFinding[], kind: FindingKind): number {
  const section = SECTION[kind]!;
  for (let i = list.length - 1; i >= 0; i--) if (SECTION[list[i]!.kind]! <= section) return i + 1;
  return 0;
}

function lastOfGroup(list: readonly JourneyFinding[], kind: FindingKind, path: string): number {
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.kind === kind && list[i]!.path === path) return i;
  return -1;
}

/** Lost and changed: listJourneyChanges's tally (forensics), one transition at a time. */
function walkChanges(state: WalkState, carried: PayloadEvent | null, events: readonly PayloadEvent[], hash: Hasher): void {
  const seen = new Set(state.changeKeys);
  const list = carried === null ? events : [carried, ...events];
  const first = carried === null ? 0 : 1;
  // The carried step's own transition was walked with it.
  for (const transition of changedTransitions(list, first)) {
    const event = list[transition.step]!;
    const counted = new Set<string>();
    for (const change of transition.changes) {
      const key = hash(change.key);
      const isNew = !seen.has(key);
      if (isNew) {
        if (seen.size >= MAX_CHANGED_PATHS) continue;
        seen.add(key);
        state.changeKeys.push(key);
      }
      // Several elements of one array change in one transition: one step.
      if (counted.has(key)) continue;
      counted.add(key);
      if (change.kind !== 'lost' && change.kind !== 'changed') continue;
      const finding: JourneyFinding = { kind: change.kind, path: change.path, step: ref(event), inTransit: transition.from !== null, from: transition.from };
      if (isNew) {
        place(state.findings, finding, endOfSection(state.findings, change.kind));
      } else {
        // At the end of its field's group; a group no longer in the list lies past the cut.
        const last = lastOfGroup(state.findings, change.kind, change.path);
        if (last !== -1) place(state.findings, finding, last + 1);
      }
    }
  }
}

/** Duplicated and failed steps (analyze.ts's duplicatedSteps and failedSteps). */
function walkSteps(state: WalkState, events: readonly PayloadEvent[], hash: Hasher): void {
  const firsts = new Map(state.steps.map((step) => [`${step.service}\u0000${step.name}\u0000${step.operation}`, step]));
  const hashOf = (text: string | null | undefined) => (text == null ? null : hash(text));
  for (const event of events) {
    if (event.operation === 'failed') place(state.findings, { kind: 'failed', path: null, step: ref(event), inTransit: false, from: null }, state.findings.length);
    if (event.operation === 'retried') continue;
    const key = `${event.service}\u0000${event.name}\u0000${event.operation}`;
    const first = firsts.get(key);
    const input = hashOf(event.inputText);
    const output = hashOf(event.outputText);
    if (first === undefined) {
      const step = { id: event.id, service: event.service, name: event.name, operation: event.operation, hasError: event.hasError, input, output };
      firsts.set(key, step);
      state.steps.push(step);
      continue;
    }
    const deliveredTwice = event.operation === 'delivered' && !first.hasError;
    const sameContent = first.hasError === event.hasError && first.input === input && first.output === output;
    if (deliveredTwice || !sameContent) {
      const from = { eventId: first.id, service: first.service, name: first.name };
      place(state.findings, { kind: 'duplicated', path: null, step: ref(event), inTransit: false, from }, endOfSection(state.findings, 'duplicated'));
    }
  }
}

/** What the expectation's findings need: the last event, the final step, the names seen, the first over-long gap. */
function walkTimeline(state: WalkState, events: readonly PayloadEvent[], expectation: Expectation | null): void {
  const listed = new Set(expectation?.steps.map((step) => step.name) ?? []);
  const seen = new Set(state.seenSteps);
  const gapMs = expectation?.maxGapSeconds == null ? null : expectation.maxGapSeconds * 1000;
  for (const event of events) {
    const at = timeOf(event);
    if (expectation !== null && state.final === null && event.name === expectation.finalStep) state.final = ref(event);
    if (listed.has(event.name) && !seen.has(event.name)) {
      seen.add(event.name);
      state.seenSteps.push(event.name);
    }
    if (gapMs !== null && state.gap === null && state.last !== null && at - state.last.timeMs > gapMs) state.gap = { step: ref(event), from: state.last.step };
    state.last = { step: ref(event), timeMs: at };
  }
}

/** analyze.ts's againstExpectation, from the walk's state. */
export function expectationFindings(state: WalkState, startedAtMs: number, expectation: Expectation, nowMs: number): JourneyFinding[] {
  const findings: JourneyFinding[] = [];
  const deadlineMs = expectation.deadlineSeconds === null ? null : expectation.deadlineSeconds * 1000;
  const gapMs = expectation.maxGapSeconds === null ? null : expectation.maxGapSeconds * 1000;
  if (state.final === null && deadlineMs !== null && nowMs > startedAtMs + deadlineMs) {
    findings.push({ kind: 'overdue', path: null, step: null, inTransit: false, from: state.last?.step ?? null });
  } else if (gapMs !== null) {
    if (state.gap !== null) findings.push({ kind: 'overdue', path: null, step: state.gap.step, inTransit: false, from: state.gap.from });
    else if (state.final === null && state.last !== null && nowMs - state.last.timeMs > gapMs) {
      findings.push({ kind: 'overdue', path: null, step: null, inTransit: false, from: state.last.step });
    }
  }
  if (state.final !== null) {
    const seen = new Set(state.seenSteps);
    for (const step of expectation.steps) {
      if (!step.optional && !seen.has(step.name)) findings.push({ kind: 'skipped_step', path: step.name, step: state.final, inTransit: false, from: null });
    }
  }
  return findings;
}

/** The journey's findings as the walk stands: the kept ones, then the expectation's. */
export function walkFindings(state: WalkState, startedAtMs: number, expectation: Expectation | null, nowMs: number): JourneyFinding[] {
  const findings = expectation === null ? state.findings : [...state.findings, ...expectationFindings(state, startedAtMs, expectation, nowMs)];
  return findings.slice(0, MAX_FINDINGS_PER_JOURNEY);
}

function timeOf(event: PayloadEvent): number {
  return parseTimestamp(event.eventTimestamp) ?? 0;
}
