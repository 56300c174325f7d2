// Findings of the journeys a batch creates, computed by ingestion in the batch's transaction from
// the payloads it has just prepared, when every event of the journey is in that batch: the
// analyzer would read exactly those events back, parse them and find the same. The verdicts are
// the analyzer's own (analyzeJourney) on the same values in the same order: events in timeline
// order, payloads as stored (jsonb-order.ts). A journey they could differ on (a step recorded
// twice, whose comparison the analyzer makes on the stored text; more events than the analyzer
// reads) is marked for the analyzer as every other journey is (docs/findings.md).

import type { Queryable } from '../db/pool.ts';
import { MAX_FORENSICS_EVENTS } from '../forensics/limits.ts';
import type { PayloadEvent } from '../query/journey-payloads.ts';
import { compareCodePoints } from '../protocol/code-point-order.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { analyzeJourney, type FindingKind } from './analyze.ts';
import { lockExpectations, selectExpectationsOf } from './expectations-sql.ts';
import { insertNewJourneyFindings, type AnalysedJourney } from './findings-sql.ts';
import { inJsonbOrder } from './jsonb-order.ts';

/** An event of a created journey as the batch stores it. */
export interface IngestedEvent {
  id: string;
  operation: string;
  name: string;
  service: string;
  timestampMs: number;
  receivedUs: number;
  durationMs: number | null;
  hasInput: boolean;
  hasOutput: boolean;
  hasError: boolean;
  /** The stored payloads (after capture); null when none is stored. */
  input: unknown;
  output: unknown;
}

export interface CreatedJourney {
  id: string;
  environmentId: string;
  entityType: string;
  startedAtMs: number;
  lastEventAtMs: number;
  /** Every event of the journey, in the batch's order. */
  events: IngestedEvent[];
}

/** What a batch found: the journeys it analysed (no mark for the analyzer), written by store(). */
export interface CreatedJourneyFindings {
  analysed: ReadonlySet<string>;
  /** Writes the findings; in the batch's transaction, after the journeys are in. */
  store(db: Queryable): Promise<void>;
  /** Journeys analysed, and findings per kind: for the metrics, once the batch commits. */
  counts(): { journeys: number; byKind: Map<FindingKind, number> };
}

/**
 * In the batch's transaction, before it writes the journeys: takes the project's expectations
 * lock shared (a change of an expectation waits for this batch, then marks its journeys too),
 * reads the expectations of their entity types and computes the findings of every journey that
 * qualifies.
 */
export async function analyseCreatedJourneys(db: Queryable, projectId: string, journeys: CreatedJourney[], nowMs: number): Promise<CreatedJourneyFindings> {
  const eligible = journeys.filter(qualifies);
  const analysed: AnalysedJourney[] = [];
  if (eligible.length > 0) {
    await lockExpectations(db, projectId, 'shared');
    const expectations = await selectExpectationsOf(db, projectId, [...new Set(eligible.map((journey) => journey.entityType))]);
    for (const journey of eligible) {
      const events = journey.events.slice().sort(timelineOrder).map(payloadEvent);
      const findings = await analyzeJourney({ payloads: { events, truncated: false }, startedAtMs: journey.startedAtMs, expectation: expectations.get(journey.entityType) ?? null, nowMs });
      analysed.push({
        journey: { projectId, id: journey.id, environmentId: journey.environmentId, entityType: journey.entityType, startedAt: new Date(journey.startedAtMs), lastEventAt: new Date(journey.lastEventAtMs), pending: 0 },
        findings,
      });
    }
  }
  return {
    analysed: new Set(analysed.map((a) => a.journey.id)),
    store: (tx) => insertNewJourneyFindings(tx, analysed, new Date(nowMs)),
    counts: () => {
      const byKind = new Map<FindingKind, number>();
      for (const { findings } of analysed) for (const finding of findings) byKind.set(finding.kind, (byKind.get(finding.kind) ?? 0) + 1);
      return { journeys: analysed.length, byKind };
    },
  };
}

/** The analyzer reads at most MAX_FORENSICS_EVENTS, and compares a repeated step's stored texts. */
function qualifies(journey: CreatedJourney): boolean {
  if (journey.events.length > MAX_FORENSICS_EVENTS) return false;
  const steps = new Set<string>();
  for (const event of journey.events) {
    if (event.operation === 'retried') continue;
    const key = `${event.service}\u0000${event.name}\u0000${event.operation}`;
    if (steps.has(key)) return false;
    steps.add(key);
  }
  return true;
}

/** The analyzer's read order: event time, then arrival, then id in byte order (COLLATE "C"). */
function timelineOrder(a: IngestedEvent, b: IngestedEvent): number {
  if (a.timestampMs !== b.timestampMs) return a.timestampMs - b.timestampMs;
  if (a.receivedUs !== b.receivedUs) return a.receivedUs - b.receivedUs;
  return compareCodePoints(a.id, b.id);
}

function payloadEvent(event: IngestedEvent): PayloadEvent {
  return {
    id: event.id,
    operation: event.operation,
    name: event.name,
    service: event.service,
    eventTimestamp: formatTimestamp(event.timestampMs),
    durationMs: event.durationMs,
    hasInput: event.hasInput,
    hasOutput: event.hasOutput,
    hasError: event.hasError,
    inputPayload: inJsonbOrder(event.input ?? null),
    outputPayload: inJsonbOrder(event.output ?? null),
  };
}
