// Journeys of the forensics tests (not a test itself): a contact arrives by webhook, is
// normalized, saved in the CRM, queued and delivered by a worker. Variants lose the phone number
// inside `normalize-contact`, lose it in transit to the CRM, repeat or drop or swap steps.

import type { PayloadEvent } from '../query/journey-payloads.ts';
import type { EventInput } from '../query/test-fixtures.ts';

export type Variant = 'kept' | 'lost' | 'transit' | 'retry' | 'missing-publish' | 'reordered';

interface Step {
  key: string;
  service: string;
  name: string;
  operation: string;
  input: unknown;
  output: unknown;
  durationMs: number;
}

const contact = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0018' };
const { phone: _phone, ...withoutPhone } = contact;

/** The steps of a variant, in timeline order. */
export function contactSteps(variant: Variant): Step[] {
  const loses = variant === 'lost';
  const normalized = loses ? { customer: withoutPhone } : { customer: contact };
  const crmInput = variant === 'transit' || loses ? { customer: withoutPhone } : { customer: contact };
  const crmOutput = { ...crmInput, crmId: 'crm-7', tags: ['new', 'web'] };
  const message = { ...crmOutput, messageId: 'm-1' };
  const steps: Step[] = [
    { key: 'receive', service: 'webhook', name: 'receive', operation: 'received', input: { contact }, output: { customer: contact }, durationMs: 4 },
    { key: 'normalize', service: 'contacts', name: 'normalize-contact', operation: 'transformed', input: { customer: contact }, output: normalized, durationMs: 7 },
    { key: 'persist', service: 'crm', name: 'persist', operation: 'persisted', input: crmInput, output: crmOutput, durationMs: 31 },
    { key: 'publish', service: 'queue', name: 'publish', operation: 'published', input: crmOutput, output: message, durationMs: 2 },
    { key: 'consume', service: 'queue', name: 'consume', operation: 'consumed', input: message, output: crmOutput, durationMs: 3 },
    { key: 'deliver', service: 'worker', name: 'deliver', operation: 'delivered', input: crmOutput, output: { ...crmOutput, delivered: true }, durationMs: 120 },
  ];
  if (variant === 'retry') steps.splice(3, 0, { ...steps[2]!, key: 'persist-retry', durationMs: 45 });
  if (variant === 'missing-publish') steps.splice(3, 1);
  if (variant === 'reordered') steps.splice(2, 2, steps[3]!, steps[2]!);
  return steps;
}

/** Events of one journey, a second apart from `start`, with an email alias (masked on reads). */
export function contactJourney(journeyId: string, variant: Variant, start = '2026-02-10T10:00:00.000Z'): EventInput[] {
  const startMs = Date.parse(start);
  return contactSteps(variant).map((step, index) => ({
    id: `${journeyId}-${index}-${step.key}`,
    journeyId,
    timestamp: new Date(startMs + index * 1000).toISOString(),
    entity: { type: 'contact', id: 'contact-1' },
    service: step.service,
    name: step.name,
    operation: step.operation,
    input: step.input,
    output: step.output,
    durationMs: step.durationMs,
    aliases: { email: 'ada@example.com' },
  }));
}

/** The journey ids of every variant, as the forensics tests name them. */
export const VARIANT_JOURNEYS = {
  'jrn-lost': 'lost',
  'jrn-kept': 'kept',
  'jrn-transit': 'transit',
  'jrn-retry': 'retry',
  'jrn-missing': 'missing-publish',
  'jrn-reordered': 'reordered',
} as const satisfies Record<string, Variant>;

/** One journey of each variant, under the ids of VARIANT_JOURNEYS. */
export function everyContactJourney(): EventInput[] {
  return Object.entries(VARIANT_JOURNEYS).flatMap(([journeyId, variant]) => contactJourney(journeyId, variant));
}

/** An in-memory step for the pure tests of the walks (no database). */
export function payloadEvent(index: number, input: unknown, output: unknown): PayloadEvent {
  return {
    id: `evt_${index}`,
    operation: 'transformed',
    name: `step-${index}`,
    service: 'svc',
    eventTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    durationMs: 1,
    hasInput: true,
    hasOutput: true,
    hasError: false,
    inputPayload: input,
    outputPayload: output,
  };
}
