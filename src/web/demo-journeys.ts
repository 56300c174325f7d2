// The demo data set of `jtrace demo`: contacts flowing from a webhook through a normalisation
// step, a CRM write and a queue to a delivery worker. Deterministic ids (re-runs find them);
// timestamps relative to the run so the journeys show in the interface's default window.

export const DEMO_PROJECT_SLUG = 'demo';
export const DEMO_ENVIRONMENT = 'production';
export const DEMO_JOURNEY_COUNT = 36;
/** The journeys spread over this many minutes before the run. */
const SPREAD_MINUTES = 50;

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Radia', 'Tim', 'Frances', 'Niklaus'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Hamilton', 'Thompson', 'Perlman', 'Berners-Lee', 'Allen', 'Wirth'];

export type DemoOutcome = 'completed' | 'phone-lost' | 'retried' | 'failed' | 'in-progress';

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
  if (i % 6 === 2) return 'phone-lost';
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
  return Array.from({ length: DEMO_JOURNEY_COUNT }, (_, i) => buildJourney(i, nowMs));
}

function buildJourney(i: number, nowMs: number): DemoJourney {
  const c = contact(i);
  const outcome = demoOutcome(i);
  const journeyId = `jrn_demo_${c.number}`;
  const start = nowMs - Math.round(((DEMO_JOURNEY_COUNT - i) / DEMO_JOURNEY_COUNT) * SPREAD_MINUTES * 60_000);
  const traceId = `trace-demo-${c.number}`;
  const messageId = `msg-${c.number}-contact-events`;
  const aliases = { email: c.email, crm: c.crmId };
  const events: Record<string, unknown>[] = [];
  let t = start;
  let step = 0;
  const add = (fields: Record<string, unknown>, gapMs: number) => {
    t += gapMs;
    step += 1;
    events.push({
      id: `evt_demo_${c.number}_${String(step).padStart(2, '0')}`,
      journeyId,
      entity: { type: 'contact', id: c.entityId },
      timestamp: new Date(t).toISOString(),
      traceId,
      spanId: `span-${c.number}-${step}`,
      correlationId: `corr-${c.number}`,
      ...fields,
    });
  };

  const webhook = { event: 'contact.updated', customer: { name: c.name, email: c.email.toUpperCase(), phone: c.phone } };
  add({ service: 'webhook-gateway', operation: 'received', name: 'receive', durationMs: 12, journeyLabel: `Contact sync ${c.entityId}`,
        input: webhook, metadata: { source: 'forms', httpStatus: 202 } }, 0);
  const lost = outcome === 'phone-lost';
  const normalized = {
    customer: {
      name: c.name,
      email: c.email,
      // The bug the demo shows: a phone with a space and a leading 0 fails a strict parser.
      ...(lost ? (i % 12 === 2 ? { phone: null } : {}) : { phone: `+44${c.phone.slice(1).replace(' ', '')}` }),
      country: 'GB',
    },
  };
  add({ service: 'contact-normalizer', operation: 'transformed', name: 'normalize-contact', durationMs: 4 + (i % 5),
        input: { customer: webhook.customer }, output: normalized, aliases, displayableAliases: ['email'] }, 180 + (i % 4) * 40);
  add({ service: 'crm-writer', operation: 'persisted', name: 'persist', durationMs: 85 + (i % 7) * 9,
        input: normalized, output: { crmId: c.crmId, status: 'updated' }, aliases, displayableAliases: ['email'] }, 240);
  add({ service: 'crm-writer', operation: 'published', name: 'publish', durationMs: 3, messageId,
        metadata: { queue: 'contact-events' } }, 110);
  if (outcome === 'in-progress') return { journeyId, entityId: c.entityId, outcome, events };
  add({ service: 'notification-worker', operation: 'consumed', name: 'consume', durationMs: 2, messageId,
        metadata: { queue: 'contact-events' } }, 650 + (i % 3) * 300);
  const timeout = { type: 'TimeoutError', message: 'Delivery to the mailing service timed out after 5000 ms', code: 'ETIMEDOUT' };
  const deliverInput = { to: c.email, template: 'contact-updated' };
  if (outcome === 'retried' || outcome === 'failed') {
    add({ service: 'notification-worker', operation: 'delivered', name: 'deliver', durationMs: 5000, input: deliverInput,
          error: timeout, metadata: { attempt: 1 } }, 40);
  }
  if (outcome === 'failed') {
    add({ service: 'notification-worker', operation: 'failed', name: 'deliver', durationMs: 5000, input: deliverInput,
          error: { ...timeout, type: 'DeadLetter', message: 'Delivery gave up after 3 attempts; message moved to the dead-letter queue' },
          metadata: { attempt: 3, deadLetterQueue: 'contact-events-dlq' } }, 15_000);
    return { journeyId, entityId: c.entityId, outcome, events };
  }
  if (outcome === 'retried') {
    add({ service: 'notification-worker', operation: 'retried', name: 'deliver', durationMs: 420, input: deliverInput,
          output: { status: 202 }, metadata: { attempt: 2 } }, 2_000);
  } else {
    add({ service: 'notification-worker', operation: 'delivered', name: 'deliver', durationMs: 310 + (i % 6) * 25, input: deliverInput,
          output: { status: 202 }, metadata: { attempt: 1 } }, 30);
  }
  add({ service: 'notification-worker', operation: 'completed', name: 'complete', durationMs: 1 }, 15);
  return { journeyId, entityId: c.entityId, outcome, events };
}
