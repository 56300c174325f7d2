// Replay hosts given by DNS names: the allowed-host list is checked on the name before any lookup,
// and the name is looked up once, the connection pinned to that answer. A name whose answer
// changes after the first lookup (DNS rebinding) never gets the replay to its second address.

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { ACCEPTED_ADDRESS, REBOUND_ADDRESS, fixedResolver, rebindingResolver, startLoopbackPair, type LoopbackPair } from '../../test/helpers/rebinding.ts';
import type { AppDeps } from '../app.ts';
import { createReplay, type ReplayDeps } from './replays.ts';
import { createDestinationVia, ingestEvent } from './test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;
let appDeps: AppDeps;
let pair: LoopbackPair;
let acme: SeededProject;
let eventId: string;

function replayDeps(allowedHosts: string[]): ReplayDeps {
  return { pool: db.pool, keyring: appDeps.keyring, allowedHosts, version: '9.9.9', now: Date.now };
}

beforeAll(async () => {
  db = await createTestDatabase();
  const built = await buildTestApp(db.pool);
  app = built.app;
  appDeps = built.deps;
  acme = await seedProject(db.pool, appDeps.keyring, 'acme');
  pair = await startLoopbackPair();
  eventId = await ingestEvent(app, acme.apiKey, { input: { a: 1 } });
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

describe('replay hosts given by DNS names', () => {
  it('sends to the first answer of a listed name only, even when the name answers differently afterwards', async () => {
    const resolver = rebindingResolver();
    const { id } = await createDestinationVia(app, acme.projectId, { baseUrl: `http://rebind.test:${pair.port}/api` });
    const run = await createReplay(replayDeps(['rebind.test']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/x' }, { resolve: resolver });
    expect(run).toMatchObject({ status: 'completed', responseStatus: 200 });
    // One lookup: nothing after it (the connect, a reconnect) asks the name again.
    expect(resolver.calls).toEqual(['rebind.test']);
    expect(pair.accepted.paths).toEqual(['/api/x']);
    expect(pair.rebound.connections).toBe(0);
  });

  it('refuses a name outside the list before any lookup, whatever address it would give', async () => {
    // The list names the accepted address itself: a name that resolves to it gains nothing.
    for (const address of [ACCEPTED_ADDRESS, REBOUND_ADDRESS]) {
      const resolver = fixedResolver(address);
      const { id } = await createDestinationVia(app, acme.projectId, { baseUrl: `http://sneaky.test:${pair.port}` });
      const run = await createReplay(replayDeps([ACCEPTED_ADDRESS]), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/' }, { resolve: resolver });
      expect(run, address).toMatchObject({ status: 'blocked', error: 'host_not_allowed' });
      expect(resolver.calls).toEqual([]);
    }
    expect(pair.accepted.connections).toBe(0);
    expect(pair.rebound.connections).toBe(0);
  });
});
