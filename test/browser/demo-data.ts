// The browser tests' data: the demo's journeys, sent through the real ingestion route.
import type { Pool } from '../../src/db/pool.ts';
import { seedProject, TEST_ENCRYPTION_KEY } from '../helpers/app.ts';
import { createKeyring } from '../../src/crypto/keyring.ts';
import { sendEvents, type SentEvent } from './journeys.ts';

export interface DemoData {
  projectId: string;
}

function contactJourney(n: number, index: number, now: number, kind: 'ok' | 'lost' | 'failed' | 'retried'): SentEvent[] {
  const journeyId = `jrn_demo_${n}`;
  const entity = { type: 'contact', id: `contact-${n}` };
  const email = `person${n}@example.com`;
  const t = (s: number) => new Date(now - 60_000 + index * 5_000 + s * 1000).toISOString();
  const customer = { name: `Person ${n}`, email, phone: '+1 555 0100' };
  const base = { journeyId, environment: 'production', entity, aliases: { email, crm: `crm-${n}` }, displayableAliases: ['email'] };
  const events: SentEvent[] = [
    { ...base, id: `${journeyId}_1`, service: 'webhook', operation: 'received', name: 'receive', timestamp: t(0), durationMs: 12, journeyLabel: `Contact ${n} signup`, input: { customer } },
    {
      ...base,
      id: `${journeyId}_2`,
      service: 'normalizer',
      operation: 'transformed',
      name: 'normalize-contact',
      timestamp: t(1),
      durationMs: 40,
      input: { customer },
      output: { customer: { fullName: customer.name, email, phone: kind === 'lost' ? null : customer.phone } },
    },
    { ...base, id: `${journeyId}_3`, service: 'crm', operation: 'persisted', name: 'persist', timestamp: t(2), durationMs: 180 },
    { ...base, id: `${journeyId}_4`, service: 'queue', operation: 'published', name: 'publish', timestamp: t(3), durationMs: 5 },
    { ...base, id: `${journeyId}_5`, service: 'worker', operation: 'consumed', name: 'consume', timestamp: t(5), durationMs: 3 },
  ];
  const deliver = (id: string, s: number, error: boolean, op = 'delivered') => ({
    ...base,
    id,
    service: 'worker',
    operation: op,
    name: 'deliver',
    timestamp: t(s),
    durationMs: 250,
    ...(error ? { error: { type: 'DeliveryError', message: 'upstream answered 503' } } : {}),
  });
  if (kind === 'failed') events.push(deliver(`${journeyId}_6`, 6, true));
  else if (kind === 'retried') events.push(deliver(`${journeyId}_6`, 6, true), deliver(`${journeyId}_7`, 9, false, 'retried'));
  else events.push(deliver(`${journeyId}_6`, 6, false));
  if (kind !== 'failed') events.push({ ...base, id: `${journeyId}_9`, service: 'worker', operation: 'completed', name: 'done', timestamp: t(12) });
  return events;
}

export async function loadDemo(pool: Pool, baseUrl: string): Promise<DemoData> {
  const project = await seedProject(pool, createKeyring({ current: TEST_ENCRYPTION_KEY }), 'demo', 'production');
  const now = Date.now();
  const kinds = ['ok', 'lost', 'failed', 'retried', 'ok', 'ok', 'lost', 'failed'] as const;
  const events = kinds.flatMap((kind, index) => contactJourney(1001 + index, index, now, kind));
  await sendEvents(baseUrl, project.apiKey, events);
  return { projectId: project.projectId };
}
