// The demo data set of `jtrace demo`: contacts flowing from a webhook through a normalisation
// step, a CRM write and a queue to a delivery worker. Deterministic ids (re-runs find them).
// Timestamps are what the services would stamp had the journeys just run one after the other:
// the demo is sent right after it is built, so every event arrives within about a minute of its
// stamp and the interface flags no clock skew, except in the one journey whose gateway clock
// is meant to be slow.

export const DEMO_PROJECT_SLUG = 'demo';
export const DEMO_ENVIRONMENT = 'production';
export const DEMO_JOURNEY_COUNT = 36;
/** The last journey ends (its last step done) this long before the run; each earlier one ends JOURNEY_SPACING_MS before the next. */
const LAST_END_MS = 2_000;
const JOURNEY_SPACING_MS = 1_000;
/** Journey i whose webhook gateway's clock runs CLOCK_BEHIND_MS slow: the demo's one case of clock skew. */
export const DEMO_SKEWED_JOURNEY = 11;
const CLOCK_BEHIND_MS = 4 * 60_000;
/** Journey i whose queue held its message this long before publishing: the overdue one under DEMO_EXPECTATION. */
export const DEMO_STALLED_JOURNEY = DEMO_JOURNEY_COUNT - 2;
const STALL_MS = 75_000;

/**
 * The expectation the demo saves for its contacts (docs/findings.md): every step in order, the
 * delivery as the final step, within a minute of the first. The stalled journey is overdue at
 * once; the other one still in progress becomes overdue a minute after it started.
 */
export const DEMO_EXPECTATION = {
  entityType: 'contact',
  steps: ['receive', 'normalize-contact', 'persist', 'publish', 'consume', 'deliver'].map((name) => ({ name, optional: false })),
  finalStep: 'deliver',
  maxGapSeconds: null,
  deadlineSeconds: 60,
} as const;

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Radia', 'Tim', 'Frances', 'Niklaus'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Hamilton', 'Thompson', 'Perlman', 'Berners-Lee', 'Allen', 'Wirth'];

/** `phone-lost`: the normalisation drops the phone; `phone-dropped`: the queue message to the worker does. */
export type DemoOutcome = 'completed' | 'phone-lost' | 'phone-dropped' | 'retried' | 'failed' | 'in-progress';

export interface DemoJourney {
  journeyId: string;
  entityId: string;
  outcome: DemoOutcome;
  events: Record<string, unknown>[];
}

/** Which story journey i (0-based) tells: most complete, some lose the phone, fail or retry. */
export function demoOutcome(i: number): DemoOutcome {
  if (i >= DEMO_JOURNEY_COUNT - 2) return 'in-progress';
  if (i % 9 === 4) return 'failed';
  if (i % 7 === 3) return 'retried';
  if (i % 8 === 2) return 'phone-lost';
  if (i % 10 === 7) return 'phone-dropped';
  return 'completed';
}

function contact(i: number) {
  const first = FIRST_NAMES[i % FIRST_NAMES.length]!;
  const last = LAST_NAMES[(i * 5) % LAST_NAMES.length]!;
  const number = 1001 + i;
  return {
    number,
    entityId: `contact-${number}`,
    name: `${first} ${last}`,
    email: `${first}.${last}${number}@example.com`.toLowerCase().replace(/[^a-z0-9.@-]/g, ''),
    // Numbers of the UK drama range (01632 960xxx), never a real subscriber.
    phone: `01632 960${String(100 + i).padStart(3, '0')}`,
    crmId: `crm-${8800 + i}`,
  };
}

export function buildDemoJourneys(nowMs: number): DemoJourney[] {
  return Array.from({ length: DEMO_JOURNEY_COUNT }, (_, i) => {
    const journey = buildJourney(i);
    // Journeys ran one after the other, the last one just before the run.
    const end = nowMs - LAST_END_MS - (DEMO_JOURNEY_COUNT - 1 - i) * JOURNEY_SPACING_MS;
    const shift = end - Math.max(...journey.events.map((event) => event.at + (event.durationMs as number)));
    const events = journey.events.map(({ at, clockBehindMs, ...event }) => ({ ...event, timestamp: new Date(at + shift - clockBehindMs).toISOString() }));
    return { ...journey, events };
  });
}

interface TimedEvent extends Record<string, unknown> {
  /** When it happened, relative to the journey's start. */
  at: number;
  /** How slow the clock of the service that stamped it runs. */
  clockBehindMs: number;
}

function buildJourney(i: number): Omit<DemoJourney, 'events'> & { events: TimedEvent[] } {
  const c = contact(i);
  const outcome = demoOutcome(i);
  const journeyId = `jrn_demo_${c.number}`;
  const traceId = `trace-demo-${c.number}`;
  const messageId = `msg-${c.number}-contact-events`;
  const aliases = { email: c.email, crm: c.crmId };
  const events: TimedEvent[] = [];
  let t = 0;
  let step = 0;
  const add = (fields: Record<string, unknown>, gapMs: number) => {
    t += gapMs;
    step += 1;
    events.push({
      id: `evt_demo_${c.number}_${String(step).padStart(2, '0')}`,
      journeyId,
      entity: { type: 'contact', id: c.entityId },
      at: t,
      clockBehindMs: fields.service === 'webhook-gateway' && i === DEMO_SKEWED_JOURNEY ? CLOCK_BEHIND_MS : 0,
      traceId,
      spanId: `span-${c.number}-${step}`,
      correlationId: `corr-${c.number}`,
      ...fields,
    });
  };

  // One envelope travels the whole way, so the only changes are the ones each story is about.
  const webhook = { event: 'contact.updated', customer: { name: c.name, email: c.email.toUpperCase(), phone: c.phone } };
  add({ service: 'webhook-gateway', operation: 'received', name: 'receive', durationMs: 12, journeyLabel: `Contact sync ${c.entityId}`,
        input: webhook, metadata: { source: 'forms', httpStatus: 202 } }, 0);
  const lost = outcome === 'phone-lost';
  const normalized = {
    event: webhook.event,
    customer: {
      name: c.name,
      email: c.email,
      // The bug the demo shows: a phone with a space and a leading 0 fails a strict parser.
      ...(lost ? (i % 12 === 2 ? { phone: null } : {}) : { phone: `+44${c.phone.slice(1).replace(' ', '')}` }),
      country: 'GB',
    },
  };
  add({ service: 'contact-normalizer', operation: 'transformed', name: 'normalize-contact', durationMs: 4 + (i % 5),
        input: webhook, output: normalized, aliases, displayableAliases: ['email'] }, 180 + (i % 4) * 40);
  const record = { ...normalized, crmId: c.crmId, status: 'updated' };
  add({ service: 'crm-writer', operation: 'persisted', name: 'persist', durationMs: 85 + (i % 7) * 9,
        input: normalized, output: record, aliases, displayableAliases: ['email'] }, 240);
  add({ service: 'crm-writer', operation: 'published', name: 'publish', durationMs: 3, messageId,
        metadata: { queue: 'contact-events' } }, i === DEMO_STALLED_JOURNEY ? STALL_MS : 110);
  if (outcome === 'in-progress') return { journeyId, entityId: c.entityId, outcome, events };
  add({ service: 'notification-worker', operation: 'consumed', name: 'consume', durationMs: 2, messageId,
        metadata: { queue: 'contact-events' } }, 1_200 + (i % 3) * 600);
  const timeout = { type: 'TimeoutError', message: 'Delivery to the mailing service timed out after 5000 ms', code: 'ETIMEDOUT' };
  // The other bug: the queue message is built from an outdated schema that has no phone.
  const deliverInput = { ...record, ...(outcome === 'phone-dropped' ? { customer: { name: c.name, email: c.email, country: 'GB' } } : {}), template: 'contact-updated' };
  if (outcome === 'retried' || outcome === 'failed') {
    add({ service: 'notification-worker', operation: 'delivered', name: 'deliver', durationMs: 5000, input: deliverInput,
          error: timeout, metadata: { attempt: 1 } }, 40);
  }
  if (outcome === 'failed') {
    // Every attempt the dead-letter message counts is recorded, so the timeline counts the same.
    add({ service: 'notification-worker', operation: 'delivered', name: 'deliver', durationMs: 5000, input: deliverInput,
          error: timeout, metadata: { attempt: 2 } }, 7_000);
    add({ service: 'notification-worker', operation: 'failed', name: 'deliver', durationMs: 5000, input: deliverInput,
          error: { ...timeout, type: 'DeadLetter', message: 'Delivery gave up after 3 attempts; message moved to the dead-letter queue' },
          metadata: { attempt: 3, deadLetterQueue: 'contact-events-dlq' } }, 8_000);
    return { journeyId, entityId: c.entityId, outcome, events };
  }
  if (outcome === 'retried') {
    add({ service: 'notification-worker', operation: 'retried', name: 'deliver', durationMs: 420, input: deliverInput,
          output: { ...deliverInput, delivered: true }, metadata: { attempt: 2 } }, 7_000);
  } else {
    add({ service: 'notification-worker', operation: 'delivered', name: 'deliver', durationMs: 310 + (i % 6) * 25, input: deliverInput,
          output: { ...deliverInput, delivered: true }, metadata: { attempt: 1 } }, 30);
  }
  add({ service: 'notification-worker', operation: 'completed', name: 'complete', durationMs: 1 }, 15);
  return { journeyId, entityId: c.entityId, outcome, events };
}
