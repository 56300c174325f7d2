// Alert webhooks given by DNS names go through the replay sender: the host list (checked again
// before every attempt) is applied to the name, the name is looked up once and the connection
// pinned to that answer. A name whose answer changes after the first lookup never gets the
// notification to its second address; a name the list no longer holds is never looked up.

import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { ACCEPTED_ADDRESS, REBOUND_ADDRESS, fixedResolver, rebindingResolver, startLoopbackPair, type LoopbackPair } from '../../test/helpers/rebinding.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { createMetrics } from '../metrics/metrics.ts';
import type { Resolver } from '../replay/sender.ts';
import { startAlertDispatcher } from './dispatcher.ts';
import { enqueue } from './outbox-sql.ts';

const REBINDING = 'alerts.rebind.test';
const SNEAKY = 'sneaky.test';
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

let db: TestDatabase;
let app: FastifyInstance;
let keyring: Keyring;
let pair: LoopbackPair;
let acme: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  // Rules may be made for both names; the dispatcher below applies its own list at send time.
  const built = await buildTestApp(db.pool, { config: { alertAllowedHosts: [REBINDING, SNEAKY] } });
  app = built.app;
  keyring = built.deps.keyring;
  acme = await seedProject(db.pool, keyring, 'acme');
  pair = await startLoopbackPair();
});
afterAll(async () => {
  await app.close();
  await pair.close();
  await db.drop();
});
beforeEach(() => {
  pair.accepted.connections = 0;
  pair.accepted.paths.length = 0;
  pair.rebound.connections = 0;
});

/** A webhook rule for `url` with one firing notification due now. */
async function ruleWithDueNotification(url: string): Promise<string> {
  const created = await app.inject({
    method: 'POST', url: `/v1/projects/${acme.projectId}/alert-rules`, headers: admin,
    payload: JSON.stringify({ name: `to ${new URL(url).hostname}`, kind: 'lost', channel: { type: 'webhook', url } }),
  });
  expect(created.statusCode, created.body).toBe(201);
  const rule = created.json().data as { id: string };
  const now = new Date();
  const body = {
    notification: 'firing',
    rule: { id: rule.id, projectId: acme.projectId, name: 'x', kind: 'lost', path: null, entityType: null, environment: null, threshold: { count: 1, windowMinutes: 1 } },
    windowStart: now.toISOString(), windowEnd: new Date(now.getTime() + 60_000).toISOString(), count: 1, journeys: [],
  };
  await enqueue(db.pool, { projectId: acme.projectId, id: randomUUID(), ruleId: rule.id, windowStart: now, notification: 'firing', body, now });
  return rule.id;
}

/** One dispatcher pass with this host list and resolver; answers notifications sent and the rule's log. */
async function dispatchOnce(ruleId: string, allowedHosts: string[], resolve: Resolver) {
  const dispatcher = startAlertDispatcher({
    pool: db.pool, keyring, logger: pino({ level: 'silent' }), metrics: createMetrics(), allowedHosts, version: '9.9.9',
    intervalMs: 3_600_000, send: { resolve },
  });
  try {
    const sent = await dispatcher.runOnce();
    const log = await app.inject({ method: 'GET', url: `/v1/projects/${acme.projectId}/alert-rules/${ruleId}/deliveries`, headers: admin });
    return { sent, deliveries: log.json().data.items as Array<{ outcome: string; error: string | null }> };
  } finally {
    await dispatcher.stop();
  }
}

describe('alert hosts given by DNS names', () => {
  it('delivers to the first answer of a listed name only, even when the name answers differently afterwards', async () => {
    const ruleId = await ruleWithDueNotification(`http://${REBINDING}:${pair.port}/hook`);
    const resolver = rebindingResolver();
    const { sent, deliveries } = await dispatchOnce(ruleId, [REBINDING], resolver);
    expect(sent).toBe(1);
    expect(deliveries.map((d) => d.outcome)).toEqual(['sent']);
    expect(resolver.calls).toEqual([REBINDING]);
    expect(pair.accepted.paths).toEqual(['/hook']);
    expect(pair.rebound.connections).toBe(0);
  });

  it('blocks a name outside the list before any lookup, whatever address it would give', async () => {
    // The list names the accepted address itself: a name that resolves to it gains nothing.
    for (const address of [ACCEPTED_ADDRESS, REBOUND_ADDRESS]) {
      const ruleId = await ruleWithDueNotification(`http://${SNEAKY}:${pair.port}/hook`);
      const resolver = fixedResolver(address);
      const { sent, deliveries } = await dispatchOnce(ruleId, [ACCEPTED_ADDRESS], resolver);
      expect(sent, address).toBe(0);
      expect(deliveries).toMatchObject([{ outcome: 'blocked', error: 'host_not_allowed' }]);
      expect(resolver.calls).toEqual([]);
    }
    expect(pair.accepted.connections).toBe(0);
    expect(pair.rebound.connections).toBe(0);
  });
});
