import { describe, expect, it } from 'vitest';
import { classifyEvent, type EventClass } from '../protocol/envelope-types.ts';
import {
  applyEvent,
  compareCodePoints,
  compareTimeline,
  newJourneyState,
  type JourneyState,
  type SummaryEvent,
} from './journey-summary.ts';

/**
 * The journey summary of event protocol 3.4, checked against the status table and rules 1–5
 * of interface-spec section 3 and the consequences listed in event protocol 3.5.
 */

// receivedAt defaults to arrival order, as the server clock gives it.
let arrival = 0;
function ev(
  eventClass: EventClass,
  t: number,
  extra: { name?: string; id?: string; rx?: number; label?: string; service?: string } = {},
): SummaryEvent {
  arrival += 1;
  return {
    key: { timestampMs: t, receivedAtUs: extra.rx ?? arrival, eventId: extra.id ?? `evt_${String(arrival).padStart(4, '0')}` },
    name: extra.name ?? `${eventClass}@${t}`,
    service: extra.service ?? 'svc',
    eventClass,
    ...(extra.label !== undefined ? { journeyLabel: extra.label } : {}),
  };
}

/** Applies events in the order given (arrival order), the first one creating the journey. */
function replay(...events: SummaryEvent[]): JourneyState {
  let state = newJourneyState(events[0]!);
  for (const event of events) state = applyEvent(state, event);
  return state;
}

const T = 1_000_000;

describe('status table: (new journey)', () => {
  it('the creating state is active, empty, started and last at the first timestamp', () => {
    const first = ev('neutral', T);
    expect(newJourneyState(first)).toEqual({
      status: 'active', eventCount: 0, startedAtMs: T, lastEventAtMs: T, completedAtMs: null, services: [],
      label: null, labelKey: null, lastStep: null, lastStepKey: null, failedStep: null, failedKey: null,
    });
  });

  it('the first stored event makes it active with one event and that step as lastStep', () => {
    const first = ev('neutral', T, { name: 'received webhook', service: 'api' });
    const state = replay(first);
    expect(state).toMatchObject({ status: 'active', eventCount: 1, startedAtMs: T, lastEventAtMs: T, completedAtMs: null });
    expect(state).toMatchObject({ services: ['api'], label: null, lastStep: 'received webhook', failedStep: null });
    expect(state.lastStepKey).toEqual(first.key);
  });

  it('a creating event that fails or completes is applied like any other (N = its timestamp)', () => {
    expect(replay(ev('failing', T, { name: 'boom' }))).toMatchObject({ status: 'failed', failedStep: 'boom' });
    expect(replay(ev('completing', T))).toMatchObject({ status: 'completed', completedAtMs: T });
    expect(replay(ev('clearing', T))).toMatchObject({ status: 'active', failedStep: null });
  });
});

describe('status table: active, completed → failed', () => {
  it('an event carrying an error fails an active journey whatever its operation', () => {
    expect(classifyEvent({ operation: 'delivered', error: { message: 'x' } })).toBe('failing');
    const state = replay(ev('neutral', T), ev(classifyEvent({ operation: 'delivered', error: {} }), T + 10, { name: 'deliver' }));
    expect(state).toMatchObject({ status: 'failed', failedStep: 'deliver' });
  });

  it('a failed operation fails an active journey', () => {
    expect(classifyEvent({ operation: 'failed' })).toBe('failing');
    expect(replay(ev('neutral', T), ev('failing', T + 1, { name: 'dead letter' }))).toMatchObject({ status: 'failed', failedStep: 'dead letter' });
  });

  it('a failure fails a completed journey, even stamped before the newest event (late failure)', () => {
    const state = replay(ev('neutral', T), ev('completing', T + 100), ev('failing', T + 50, { name: 'late' }));
    expect(state).toMatchObject({ status: 'failed', failedStep: 'late', lastEventAtMs: T + 100, completedAtMs: T + 100 });
  });

  it('a failure stamped before the start still fails and moves startedAt', () => {
    const state = replay(ev('neutral', T), ev('failing', T - 500, { name: 'early' }));
    expect(state).toMatchObject({ status: 'failed', failedStep: 'early', startedAtMs: T - 500, lastEventAtMs: T });
    expect(state.lastStep).toBe('neutral@1000000');
  });
});

describe('status table: failed + another failing event', () => {
  it('a later failure takes over failedStep', () => {
    const state = replay(ev('failing', T, { name: 'first' }), ev('failing', T + 1, { name: 'second' }));
    expect(state).toMatchObject({ status: 'failed', failedStep: 'second' });
  });

  it('an earlier-stamped failure arriving later does not take over failedStep', () => {
    const first = ev('failing', T, { name: 'first' });
    const state = replay(first, ev('failing', T - 1, { name: 'older' }));
    expect(state).toMatchObject({ status: 'failed', failedStep: 'first' });
    expect(state.failedKey).toEqual(first.key);
  });

  it('equal timestamps: receivedAt decides, then the event id in code point order', () => {
    expect(replay(ev('failing', T, { name: 'a', rx: 5 }), ev('failing', T, { name: 'b', rx: 4 })).failedStep).toBe('a');
    expect(replay(ev('failing', T, { name: 'a', rx: 4 }), ev('failing', T, { name: 'b', rx: 5 })).failedStep).toBe('b');
    // U+10000 is after U+E000 in code point order, though its UTF-16 form (D800 DC00) sorts first.
    const astral = { name: 'astral', rx: 7, id: 'evt_\u{10000}' };
    const private_ = { name: 'private', rx: 7, id: 'evt_\uE000' };
    expect(replay(ev('failing', T, astral), ev('failing', T, private_)).failedStep).toBe('astral');
    expect(replay(ev('failing', T, private_), ev('failing', T, astral)).failedStep).toBe('astral');
  });

  it('counts only failures since the journey last became failed (3.5: named after a clearing retry)', () => {
    // A fails at T+50, a retry at T+60 clears it, then a failure stamped T+10 arrives: it fails
    // the journey again and is named, although A is later in the timeline.
    const state = replay(
      ev('neutral', T),
      ev('failing', T + 50, { name: 'A' }),
      ev('clearing', T + 60, { name: 'retry' }),
      ev('failing', T + 10, { name: 'stamped-before-retry' }),
    );
    expect(state).toMatchObject({ status: 'failed', failedStep: 'stamped-before-retry', lastStep: 'retry', lastEventAtMs: T + 60 });
  });

  it('after re-failing, a failure later than the new failedStep but older than the old one takes over', () => {
    const state = replay(
      ev('failing', T + 50, { name: 'A' }),
      ev('clearing', T + 60),
      ev('failing', T + 10, { name: 'B' }),
      ev('failing', T + 20, { name: 'C' }),
      ev('failing', T + 5, { name: 'D' }),
    );
    expect(state.failedStep).toBe('C');
  });
});

describe('status table: active, failed → completed', () => {
  it('a completion at or after the newest timestamp completes a failed journey and clears failedStep', () => {
    for (const t of [T + 10, T + 11]) {
      const state = replay(ev('failing', T + 10, { name: 'x' }), ev('completing', t, { name: 'done' }));
      expect(state).toMatchObject({ status: 'completed', completedAtMs: t, failedStep: null, failedKey: null });
    }
  });

  it('completes an active journey', () => {
    expect(replay(ev('neutral', T), ev('completing', T + 1))).toMatchObject({ status: 'completed', completedAtMs: T + 1 });
  });

  it('an earlier-stamped completion does nothing (3.5)', () => {
    const failed = replay(ev('failing', T + 10, { name: 'x' }), ev('completing', T + 9));
    expect(failed).toMatchObject({ status: 'failed', failedStep: 'x', completedAtMs: null, eventCount: 2 });
    const active = replay(ev('neutral', T + 10), ev('completing', T + 9));
    expect(active).toMatchObject({ status: 'active', completedAtMs: null });
  });

  it('a later completion of a completed journey moves completedAt; an earlier one does not', () => {
    const later = replay(ev('completing', T), ev('completing', T + 5));
    expect(later.completedAtMs).toBe(T + 5);
    const earlier = replay(ev('completing', T + 5), ev('completing', T));
    expect(earlier.completedAtMs).toBe(T + 5);
  });

  it('a later completion turns failed into completed (3.5)', () => {
    const state = replay(ev('neutral', T), ev('failing', T + 1), ev('completing', T + 2));
    expect(state).toMatchObject({ status: 'completed', completedAtMs: T + 2, failedStep: null });
  });
});

describe('status table: failed → active by a retry without error', () => {
  it('clears the failure at or after the newest timestamp and keeps completedAt', () => {
    for (const t of [T + 20, T + 21]) {
      const state = replay(ev('completing', T + 10), ev('failing', T + 20, { name: 'x' }), ev('clearing', t));
      expect(state).toMatchObject({ status: 'active', failedStep: null, failedKey: null, completedAtMs: T + 10 });
    }
  });

  it('a retry never completes a journey', () => {
    expect(classifyEvent({ operation: 'retried' })).toBe('clearing');
    const state = replay(ev('failing', T), ev('clearing', T + 1));
    expect(state).toMatchObject({ status: 'active', completedAtMs: null });
  });

  it('a retry of an active or completed journey changes nothing', () => {
    expect(replay(ev('neutral', T), ev('clearing', T + 1)).status).toBe('active');
    expect(replay(ev('completing', T), ev('clearing', T + 1))).toMatchObject({ status: 'completed', completedAtMs: T });
  });
});

describe('status table: any → failed by a retry carrying an error', () => {
  it('is an ordinary failure', () => {
    expect(classifyEvent({ operation: 'retried', error: { message: 'again' } })).toBe('failing');
    for (const before of [ev('neutral', T), ev('completing', T), ev('failing', T, { name: 'x' })]) {
      const state = replay(before, ev(classifyEvent({ operation: 'retried', error: {} }), T + 1, { name: 'retry 2' }));
      expect(state).toMatchObject({ status: 'failed', failedStep: 'retry 2' });
    }
  });
});

describe('rules 1–5', () => {
  it('1: completedAt is set only by a completion and kept through a failure and a clearing retry', () => {
    const completed = replay(ev('neutral', T), ev('completing', T + 10));
    const failed = applyEvent(completed, ev('failing', T + 20, { name: 'x' }));
    expect(failed).toMatchObject({ status: 'failed', completedAtMs: T + 10 });
    const cleared = applyEvent(failed, ev('clearing', T + 30));
    expect(cleared).toMatchObject({ status: 'active', completedAtMs: T + 10, failedStep: null });
    for (const cls of ['neutral', 'failing', 'clearing'] as const) {
      expect(replay(ev('neutral', T), ev(cls, T + 1)).completedAtMs).toBeNull();
    }
  });

  it('2: a retry stamped before the newest event changes nothing', () => {
    const before = replay(ev('neutral', T + 30), ev('failing', T + 20, { name: 'x' }));
    const after = applyEvent(before, ev('clearing', T + 25, { name: 'retry' }));
    expect(after).toMatchObject({ status: 'failed', failedStep: 'x', failedKey: before.failedKey, lastStep: before.lastStep });
    expect(after.eventCount).toBe(3);
  });

  it('3: a journey that retried successfully and stopped reads active', () => {
    const state = replay(ev('neutral', T), ev('failing', T + 1), ev('clearing', T + 2), ev('neutral', T + 3));
    expect(state.status).toBe('active');
  });

  it('4: during a retry lastStep moves on while failedStep keeps the failed step', () => {
    const failed = replay(ev('neutral', T), ev('failing', T + 10, { name: 'charge card' }));
    const inFlight = applyEvent(failed, ev('neutral', T + 20, { name: 'charge card (attempt 2)' }));
    expect(inFlight).toMatchObject({ status: 'failed', failedStep: 'charge card', lastStep: 'charge card (attempt 2)' });
    // The retry's own event, stamped before the newest, moves lastStep only if later in the timeline.
    const stale = applyEvent(inFlight, ev('clearing', T + 15, { name: 'retried' }));
    expect(stale).toMatchObject({ status: 'failed', failedStep: 'charge card', lastStep: 'charge card (attempt 2)' });
  });

  it('5: a failed journey without a recorded failedStep keeps it null until its next failure', () => {
    const legacy: JourneyState = { ...replay(ev('neutral', T)), status: 'failed', failedStep: null, failedKey: null };
    expect(applyEvent(legacy, ev('neutral', T + 1))).toMatchObject({ status: 'failed', failedStep: null });
    // Even an earlier-stamped failure names the step: there is none to compare with.
    expect(applyEvent(legacy, ev('failing', T - 1, { name: 'next' }))).toMatchObject({ status: 'failed', failedStep: 'next' });
  });
});

describe('label and lastStep follow the timeline, not arrival order (3.5)', () => {
  it('the timeline-latest label wins in every arrival order', () => {
    const a = ev('neutral', T, { label: 'first' });
    const b = ev('neutral', T + 1, { label: 'second' });
    const c = ev('neutral', T + 2, { label: 'third' });
    for (const order of [[a, b, c], [c, b, a], [b, c, a], [c, a, b]]) {
      const state = replay(...order);
      expect(state.label).toBe('third');
      expect(state.labelKey).toEqual(c.key);
      expect(state.lastStep).toBe(c.name);
    }
  });

  it('an event without a label leaves it; a later event without one does not clear it', () => {
    const state = replay(ev('neutral', T, { label: 'kept' }), ev('neutral', T + 5), ev('failing', T + 6));
    expect(state.label).toBe('kept');
  });

  it('a late event with an older stamp sets the label only when none is set yet', () => {
    const state = replay(ev('neutral', T + 10), ev('neutral', T, { label: 'only label' }));
    expect(state.label).toBe('only label');
    expect(state.lastStep).toBe('neutral@1000010');
    expect(applyEvent(state, ev('neutral', T + 5, { label: 'newer' })).label).toBe('newer');
    expect(applyEvent(state, ev('neutral', T - 5, { label: 'older' })).label).toBe('only label');
  });

  it('ties: receivedAt first, then event id by code point', () => {
    const early = ev('neutral', T, { rx: 1, label: 'rx1', name: 'rx1', id: 'z' });
    const late = ev('neutral', T, { rx: 2, label: 'rx2', name: 'rx2', id: 'a' });
    expect(replay(late, early)).toMatchObject({ label: 'rx2', lastStep: 'rx2' });
    const bmp = ev('neutral', T, { rx: 3, label: 'bmp', name: 'bmp', id: 'id\uFFFF' });
    const astral = ev('neutral', T, { rx: 3, label: 'astral', name: 'astral', id: 'id\u{1F600}' });
    expect(replay(astral, bmp)).toMatchObject({ label: 'astral', lastStep: 'astral' });
    expect(replay(bmp, astral)).toMatchObject({ label: 'astral', lastStep: 'astral' });
  });
});

describe('counters, bounds and services', () => {
  it('counts every applied event, keeps the earliest and latest timestamps', () => {
    const state = replay(ev('neutral', T), ev('neutral', T + 50), ev('failing', T - 20), ev('completing', T + 10));
    expect(state).toMatchObject({ eventCount: 4, startedAtMs: T - 20, lastEventAtMs: T + 50 });
  });

  it('keeps distinct services in code point order', () => {
    const names = ['zeta', '\u{1F600}svc', '\uFFFFsvc', 'alpha', 'zeta', '\uE000svc', 'Beta'];
    const state = replay(...names.map((service, i) => ev('neutral', T + i, { service })));
    expect(state.services).toEqual(['Beta', 'alpha', 'zeta', '\uE000svc', '\uFFFFsvc', '\u{1F600}svc']);
  });

  it('never changes the state it is given', () => {
    const state = replay(ev('neutral', T, { label: 'x', service: 'a' }));
    const frozen = Object.freeze({ ...state, services: Object.freeze([...state.services]) as string[] });
    const next = applyEvent(frozen, ev('failing', T + 1, { service: 'b', label: 'y' }));
    expect(frozen).toEqual(state);
    expect(next).toMatchObject({ status: 'failed', services: ['a', 'b'], label: 'y' });
  });
});

describe('compareCodePoints and compareTimeline (3.3)', () => {
  const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

  it('puts characters outside the BMP after U+E000–U+FFFF, unlike UTF-16 order', () => {
    for (const bmp of ['\uE000', '\uF8FF', '\uFFFD', '\uFFFF']) {
      for (const astral of ['\u{10000}', '\u{1F600}', '\u{10FFFF}']) {
        expect(compareCodePoints(bmp, astral)).toBe(-1);
        expect(compareCodePoints(astral, bmp)).toBe(1);
        expect(bmp < astral).toBe(false); // what a naive comparison would get wrong
      }
    }
  });

  it('orders equal strings, prefixes and astral pairs', () => {
    expect(compareCodePoints('', '')).toBe(0);
    expect(compareCodePoints('\u{1F600}x', '\u{1F600}x')).toBe(0);
    expect(compareCodePoints('ab', 'abc')).toBe(-1);
    expect(compareCodePoints('abc', 'ab')).toBe(1);
    expect(compareCodePoints('\u{1F600}', '\u{1F601}')).toBe(-1);
    expect(compareCodePoints('\u{1F600}a', '\u{1F600}b')).toBe(-1);
    expect(compareCodePoints('\u{1F600}\uFFFF', '\u{1F600}\u{10000}')).toBe(-1);
    expect(compareCodePoints('B', 'a')).toBe(-1);
  });

  it('agrees with UTF-8 byte order on many mixed strings', () => {
    const alphabet = ['a', 'b', 'Z', '\u00e9', '\u07ff', '\u0800', '\uD7FF', '\uE000', '\uFFFF', '\u{10000}', '\u{1F600}', '\u{10FFFF}'];
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    const strings = Array.from({ length: 300 }, () =>
      Array.from({ length: next() % 5 }, () => alphabet[next() % alphabet.length]!).join(''),
    );
    const byCodePoint = [...strings].sort(compareCodePoints);
    const byBytes = [...strings].sort(utf8Order);
    expect(byCodePoint).toEqual(byBytes);
    for (let i = 0; i < strings.length - 1; i++) {
      expect(Math.sign(compareCodePoints(strings[i]!, strings[i + 1]!))).toBe(Math.sign(utf8Order(strings[i]!, strings[i + 1]!)));
    }
  });

  it('compares timestamp, then receivedAt, then id', () => {
    const key = (timestampMs: number, receivedAtUs: number, eventId: string) => ({ timestampMs, receivedAtUs, eventId });
    expect(compareTimeline(key(1, 9, 'z'), key(2, 0, 'a'))).toBe(-1);
    expect(compareTimeline(key(2, 1, 'z'), key(2, 2, 'a'))).toBe(-1);
    expect(compareTimeline(key(2, 2, 'b'), key(2, 2, 'a'))).toBe(1);
    expect(compareTimeline(key(2, 2, '\u{10000}'), key(2, 2, '\uE000'))).toBe(1);
    expect(compareTimeline(key(2, 2, 'a'), key(2, 2, 'a'))).toBe(0);
  });
});
