import type { EventClass } from '../protocol/envelope-types.ts';

/**
 * The journey summary algorithm of event protocol 3.4, as a pure function over one stored
 * journey state. The ingestion transaction locks the journey row, applies its events in commit
 * order with this function and writes the result back.
 */

/** Timeline position: (event timestamp ms, receivedAt µs, event id in code point order). */
export interface TimelineKey {
  timestampMs: number;
  receivedAtUs: number;
  eventId: string;
}

export type JourneyStatus = 'active' | 'completed' | 'failed';

export interface JourneyState {
  status: JourneyStatus;
  eventCount: number;
  startedAtMs: number;
  lastEventAtMs: number;
  completedAtMs: number | null;
  services: string[];
  label: string | null;
  labelKey: TimelineKey | null;
  lastStep: string | null;
  lastStepKey: TimelineKey | null;
  failedStep: string | null;
  failedKey: TimelineKey | null;
}

export interface SummaryEvent {
  key: TimelineKey;
  name: string;
  service: string;
  eventClass: EventClass;
  journeyLabel?: string;
}

/** Compares strings by code point (= UTF-8 byte order), not by UTF-16 unit. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function compareTimeline(a: TimelineKey, b: TimelineKey): number {
  if (a.timestampMs !== b.timestampMs) return a.timestampMs < b.timestampMs ? -1 : 1;
  if (a.receivedAtUs !== b.receivedAtUs) return a.receivedAtUs < b.receivedAtUs ? -1 : 1;
  return compareCodePoints(a.eventId, b.eventId);
}

function isLater(key: TimelineKey, than: TimelineKey | null): boolean {
  return than === null || compareTimeline(key, than) > 0;
}

/** The state of a journey its first stored event creates, before that event is applied. */
export function newJourneyState(first: SummaryEvent): JourneyState {
  return {
    status: 'active',
    eventCount: 0,
    startedAtMs: first.key.timestampMs,
    lastEventAtMs: first.key.timestampMs,
    completedAtMs: null,
    services: [],
    label: null,
    labelKey: null,
    lastStep: null,
    lastStepKey: null,
    failedStep: null,
    failedKey: null,
  };
}

function withService(services: string[], service: string): string[] {
  if (services.includes(service)) return services;
  return [...services, service].sort(compareCodePoints);
}

/** Applies one stored event (not a duplicate, not refused). Returns a new state. */
export function applyEvent(state: JourneyState, event: SummaryEvent): JourneyState {
  const t = event.key.timestampMs;
  const newest = state.lastEventAtMs;
  const next: JourneyState = {
    ...state,
    eventCount: state.eventCount + 1,
    startedAtMs: Math.min(state.startedAtMs, t),
    lastEventAtMs: Math.max(newest, t),
    services: withService(state.services, event.service),
  };

  switch (event.eventClass) {
    case 'failing':
      // A failure registers whatever its stamp; among failures since the journey last became
      // failed, the one latest in timeline order names the step.
      if (state.status !== 'failed' || state.failedKey === null || isLater(event.key, state.failedKey)) {
        next.failedStep = event.name;
        next.failedKey = event.key;
      }
      next.status = 'failed';
      break;
    case 'completing':
      if (t >= newest) {
        next.status = 'completed';
        next.completedAtMs = t;
        next.failedStep = null;
        next.failedKey = null;
      }
      break;
    case 'clearing':
      if (t >= newest && state.status === 'failed') {
        next.status = 'active';
        next.failedStep = null;
        next.failedKey = null;
      }
      break;
    case 'neutral':
      break;
  }

  if (event.journeyLabel !== undefined && (state.label === null || isLater(event.key, state.labelKey))) {
    next.label = event.journeyLabel;
    next.labelKey = event.key;
  }
  if (state.lastStep === null || isLater(event.key, state.lastStepKey)) {
    next.lastStep = event.name;
    next.lastStepKey = event.key;
  }
  return next;
}
