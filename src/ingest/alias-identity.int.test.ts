// A journey stores one alias per (type, normalized value) (event protocol 4.2), however many it
// has gathered and whichever key wrote the first one: a batch reads only the stored aliases whose
// tokens it states, so these check that it still finds every one it must.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Keyring } from '../crypto/keyring.ts';
import { bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { KEYRING_A, KEYRING_BA } from '../rotation/test-rotation-kit.ts';

let db: TestDatabase;
let project: SeededProject;
let appA: FastifyInstance;
let appBA: FastifyInstance;
let counter = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  project = await seedProject(db.pool, KEYRING_A, 'aliases');
  appA = await appUnder(KEYRING_A);
  appBA = await appUnder(KEYRING_BA);
});
afterAll(async () => {
  await Promise.all([appA.close(), appBA.close()]);
  await db.drop();
});

async function appUnder(keyring: Keyring): Promise<FastifyInstance> {
  return (await buildTestApp(db.pool, { keyring })).app;
}

function envelope(journeyId: string, aliases: Record<string, string>, displayable: string[] = []) {
  counter += 1;
  return {
    protocolVersion: '0.1',
    event: {
      id: `evt_alias_${counter}`,
      journeyId,
      environment: 'production',
      service: 'crm',
      entity: { type: 'contact', id: journeyId },
      operation: 'identified',
      name: 'identify',
      timestamp: new Date(Date.UTC(2026, 10, 1) + counter * 1000).toISOString(),
      aliases,
      displayableAliases: displayable,
    },
  };
}

async function send(app: FastifyInstance, events: unknown[]): Promise<void> {
  const response = await app.inject({ method: 'POST', url: '/v1/events/batch', headers: { ...bearer(project.apiKey), 'content-type': 'application/json' }, payload: { events } });
  expect(response.statusCode).toBe(202);
  expect(response.json().data.results.map((r: { status: string }) => r.status)).toEqual(events.map(() => 'accepted'));
}

async function aliasesOf(app: FastifyInstance, journeyId: string): Promise<Array<{ type: string; displayValue: string | null; displayable: boolean }>> {
  const response = await app.inject({ method: 'GET', url: `/v1/journeys/${journeyId}`, headers: bearer(project.apiKey) });
  expect(response.statusCode).toBe(200);
  return response.json().data.aliases;
}

describe('alias identity', () => {
  it('a journey of 2,000 aliases restating some of them, in any case of a UUID, keeps one alias each', async () => {
    const many = Object.fromEntries(Array.from({ length: 1_000 }, (_, k) => [`ref${String(k).padStart(4, '0')}`, `value-${k}`]));
    const more = Object.fromEntries(Array.from({ length: 999 }, (_, k) => [`ref${String(k).padStart(4, '0')}`, `other-${k}`]));
    const uuid = '3F2504E0-4F89-41D3-9A0C-0305E82C3301';
    await send(appA, [envelope('wide', many), envelope('wide', { ...more, order: uuid })]);
    // Restated: the same values (one with white space around it, the UUID in lower case), in one batch with a new one.
    await send(appA, [envelope('wide', { ref0000: ' value-0 ', ref0998: 'other-998', order: uuid.toLowerCase() }), envelope('wide', { ref0001: 'new-1' })]);
    const aliases = await aliasesOf(appA, 'wide');
    expect(aliases).toHaveLength(2_001);
    expect(aliases.filter((alias) => alias.type === 'order')).toHaveLength(1);
    expect(aliases.filter((alias) => alias.type === 'ref0001')).toHaveLength(3);
  });

  it('the same value under another type is another alias', async () => {
    await send(appA, [envelope('typed', { crm: 'C-1' }), envelope('typed', { billing: 'C-1', crm: 'C-1' })]);
    expect((await aliasesOf(appA, 'typed')).map((alias) => alias.type)).toEqual(['billing', 'crm']);
  });

  it('restated after a key rotation, an alias written under the previous key is the same alias, and the every-statement rule still applies', async () => {
    await send(appA, [envelope('rotated', { email: 'ada@example.com', crm: 'C-77' }, ['email', 'crm'])]);
    // Under B with A as previous: the stored rows carry A's tokens.
    await send(appBA, [envelope('rotated', { email: 'ada@example.com' }, ['email'])]);
    await send(appBA, [envelope('rotated', { crm: 'C-77' })]);
    const aliases = await aliasesOf(appBA, 'rotated');
    expect(aliases).toEqual([
      { type: 'crm', displayValue: '…', displayable: false },
      { type: 'email', displayValue: 'ada@example.com', displayable: true },
    ]);
  });
});
