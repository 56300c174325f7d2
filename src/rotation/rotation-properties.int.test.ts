import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring, type Keyring } from '../crypto/keyring.ts';
import { normalizeIdentifier } from '../protocol/identifiers.ts';
import { bearer, buildTestApp, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { searchTokenForWrite } from '../crypto/search-tokens.ts';
import { countKeyUsage, notUnderCurrentKey } from './key-usage.ts';
import { cli } from './test-rotation-kit.ts';

/**
 * Properties of search, rotation and erasure over any sequence of accepted envelopes, with
 * identifiers drawn from small pools so that the unusual cases meet often: empty alias types
 * and values, one value under several types and journeys, values that differ only by white
 * space or UUID case, a value changed between events, events sent while a rotation is under way.
 *
 * Each run rotates its own project's data from a fresh key to another: every identifier is found
 * before; after rotate:reencrypt, rotate:status exits 0 and every identifier is found under the
 * new key alone; after an erasure by one identifier none of its journeys remain and the audit
 * row's counts match what was deleted.
 */

const RUNS = 8;
let db: TestDatabase;
let run = 0;
const keyOfRun = (n: number) => `property-run-${n}-key-0123456789abcdefghijklmnopqrstu`;

const UUID = '3F2504E0-4F89-41D3-9A0C-0305E82C3301';
const VALUES = ['alpha', ' alpha', 'alpha\t', '', ' ', UUID, UUID.toLowerCase(), ` ${UUID} `, 'ünïcødé-😀', 'a\u0000b', 'shared-7', 'j-1'];
const TYPES = ['', 'email', 'crm', '__proto__', 'ref'];

const identifier = fc.constantFrom(...VALUES);
// Trace, message and correlation ids are stored in the clear: U+0000 is refused there (event-protocol 2.7).
const clearIdentifier = fc.constantFrom(...VALUES.filter((v) => !v.includes('\u0000')));
const eventArb = fc.record({
  journey: fc.integer({ min: 0, max: 3 }),
  entityId: fc.constantFrom('ord-1', ' ord-1 ', 'shared-7', UUID, 'a\u0000b', 'j-1'),
  aliases: fc.dictionary(fc.constantFrom(...TYPES), identifier, { maxKeys: 3 }),
  displayable: fc.subarray(TYPES),
  traceId: fc.option(clearIdentifier, { nil: undefined }),
  spanId: fc.option(clearIdentifier, { nil: undefined }),
  messageId: fc.option(clearIdentifier, { nil: undefined }),
  correlationId: fc.option(clearIdentifier, { nil: undefined }),
  // When the event is sent: before the rotation (key A) or during it (B with A as previous).
  phase: fc.constantFrom('before', 'during'),
});
type GeneratedEvent = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

function envelope(event: GeneratedEvent, journeyId: string, index: number) {
  // The aliases object keeps `__proto__` as an own key, as the protocol requires.
  const aliases: Record<string, string> = {};
  for (const [type, value] of Object.entries(event.aliases)) Object.defineProperty(aliases, type, { value, enumerable: true, writable: true, configurable: true });
  return {
    protocolVersion: '0.1',
    event: {
      id: `evt-${run}-${index}`,
      journeyId,
      environment: 'production',
      service: 'props',
      entity: { type: 'order', id: event.entityId },
      operation: 'received',
      name: 'step',
      timestamp: new Date(Date.now() - 60_000 + index).toISOString(),
      aliases,
      displayableAliases: event.displayable,
      ...(event.traceId !== undefined ? { traceId: event.traceId } : {}),
      ...(event.spanId !== undefined ? { spanId: event.spanId } : {}),
      ...(event.messageId !== undefined ? { messageId: event.messageId } : {}),
      ...(event.correlationId !== undefined ? { correlationId: event.correlationId } : {}),
    },
  };
}

async function send(app: FastifyInstance, apiKey: string, envelopes: unknown[]): Promise<void> {
  if (envelopes.length === 0) return;
  const response = await app.inject({
    method: 'POST',
    url: '/v1/events/batch',
    headers: { ...bearer(apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ events: envelopes }),
  });
  expect(response.statusCode, response.body.slice(0, 300)).toBe(202);
  const results = response.json().data.results as Array<{ status: string }>;
  expect(results.every((r) => r.status === 'accepted'), response.body.slice(0, 500)).toBe(true);
}

async function found(app: FastifyInstance, apiKey: string, value: string): Promise<string[]> {
  const response = await app.inject({ method: 'GET', url: `/v1/search?q=${encodeURIComponent(value)}&limit=100`, headers: bearer(apiKey) });
  expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
  return (response.json().data.items as Array<{ journeyId: string }>).map((item) => item.journeyId).sort();
}

/** Per normalized identifier, the journeys an accepted event indexed it for (events in the order sent); erasable: entity ids and aliases only. */
function expectedIndex(events: GeneratedEvent[], journeyIds: string[], erasable = false): Map<string, Set<string>> {
  const index = new Map<string, Set<string>>();
  const add = (value: string | undefined, journeyId: string) => {
    if (value === undefined) return;
    const normalized = normalizeIdentifier(value);
    // A blank identifier cannot be searched for (q must not be empty), and a NUL cannot travel in a URL here.
    if (normalized === '' || normalized.includes('\u0000')) return;
    index.set(normalized, (index.get(normalized) ?? new Set()).add(journeyId));
  };
  const created = new Set<string>();
  for (const event of events) {
    const journeyId = journeyIds[event.journey]!;
    if (!erasable) add(journeyId, journeyId);
    // A journey's entity is that of its first stored event (event-protocol 4.1).
    if (!created.has(journeyId)) add(event.entityId, journeyId);
    created.add(journeyId);
    for (const value of Object.values(event.aliases)) add(value, journeyId);
    // Erasure matches entity ids and aliases only (interface-spec: erase an identifier).
    if (erasable) continue;
    add(event.traceId, journeyId);
    add(event.spanId, journeyId);
    add(event.messageId, journeyId);
    add(event.correlationId, journeyId);
  }
  return index;
}

async function expectAllFound(app: FastifyInstance, apiKey: string, index: Map<string, Set<string>>): Promise<void> {
  for (const [value, journeys] of index) {
    const hits = await found(app, apiKey, value);
    for (const journeyId of journeys) expect(hits, `search for ${JSON.stringify(value)}`).toContain(journeyId);
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('search, rotation and erasure over any accepted envelopes', () => {
  it('finds every identifier, rotates everything, erases completely', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { minLength: 1, maxLength: 12 }), fc.nat(), async (events, pick) => {
        run += 1;
        // Runs chain their keys: what run n rotates to is what run n+1 rotates from, so the data
        // of earlier runs takes part in every later rotation too.
        const keyA = keyOfRun(run - 1);
        const keyB = keyOfRun(run);
        const keyrings: Record<'A' | 'BA' | 'B', Keyring> = {
          A: createKeyring({ current: keyA }),
          BA: createKeyring({ current: keyB, previous: keyA }),
          B: createKeyring({ current: keyB }),
        };
        const apps: FastifyInstance[] = [];
        const appUnder = async (keyring: Keyring) => {
          const { app } = await buildTestApp(db.pool, { keyring });
          apps.push(app);
          return app;
        };
        try {
          const project = await seedProject(db.pool, keyrings.A, `props-${run}`);
          const journeyIds = [`jrn-${run}-0`, 'j-1', `shared-${run}`, `jrn-${run}-3`];
          const envelopes = events.map((event, i) => ({ event, envelope: envelope(event, journeyIds[event.journey]!, i) }));
          const underA = await appUnder(keyrings.A);
          await send(underA, project.apiKey, envelopes.filter((e) => e.event.phase === 'before').map((e) => e.envelope));
          const underBA = await appUnder(keyrings.BA);
          await send(underBA, project.apiKey, envelopes.filter((e) => e.event.phase === 'during').map((e) => e.envelope));
          // The API key moves to B when it authenticates under B with A as previous.
          const sent = [...events.filter((e) => e.phase === 'before'), ...events.filter((e) => e.phase === 'during')];
          const index = expectedIndex(sent, journeyIds);
          await expectAllFound(underBA, project.apiKey, index);

          const reencrypt = await cli(db.pool, keyrings.BA, ['rotate:reencrypt']);
          expect(reencrypt.err).toEqual([]);
          expect(reencrypt.status).toBe(0);
          const status = await cli(db.pool, keyrings.BA, ['rotate:status']);
          expect(status.status, status.out.join('\n')).toBe(0);
          expect(notUnderCurrentKey(await countKeyUsage(db.pool, keyrings.B))).toBe(0);
          const underB = await appUnder(keyrings.B);
          await expectAllFound(underB, project.apiKey, index);

          const erasable = expectedIndex(sent, journeyIds, true);
          const values = [...erasable.keys()];
          if (values.length === 0) return;
          const value = values[pick % values.length]!;
          const targets = [...erasable.get(value)!].sort();
          const eventCount = await db.pool.query<{ n: string }>(
            'SELECT count(*) AS n FROM events WHERE project_id = $1 AND journey_id = ANY($2::text[])',
            [project.projectId, targets],
          );
          const erase = await cli(db.pool, keyrings.B, ['delete:identifier', project.slug, '--', value]);
          expect(erase.status, erase.err.join('\n')).toBe(0);
          expect(erase.out).toEqual([`deleted ${targets.length} journeys (${eventCount.rows[0]!.n} events)`]);
          // What remains found by the value is only what erasure does not cover (journey, trace, message, correlation ids).
          const stillFound = await found(underB, project.apiKey, value);
          expect(stillFound.filter((journeyId) => targets.includes(journeyId))).toEqual([]);
          const left = await db.pool.query('SELECT 1 FROM journeys WHERE project_id = $1 AND id = ANY($2::text[])', [project.projectId, targets]);
          expect(left.rowCount).toBe(0);
          const audit = await db.pool.query<{ details: { deletedJourneys: number; deletedEvents: number; complete: boolean } }>(
            "SELECT details FROM audit_log WHERE project_id = $1 AND action = 'erasure.completed'",
            [project.projectId],
          );
          expect(audit.rows.map((row) => row.details)).toEqual([
            expect.objectContaining({ deletedJourneys: targets.length, deletedEvents: Number(eventCount.rows[0]!.n), complete: true }),
          ]);
        } finally {
          for (const app of apps) await app.close();
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
  }, 120_000);
});

describe('blank alias values', () => {
  it('are not indexed, and a blank token indexed earlier is dropped by rotate:reencrypt', async () => {
    run += 1;
    const [from, to] = [keyOfRun(run - 1), keyOfRun(run)];
    const keyrings = { A: createKeyring({ current: from }), BA: createKeyring({ current: to, previous: from }) };
    const project = await seedProject(db.pool, keyrings.A, `blank-${run}`);
    const { app } = await buildTestApp(db.pool, { keyring: keyrings.A });
    try {
      const event = { journey: 0, entityId: 'ord-1', aliases: { crm: ' ', '': '' }, displayable: [], phase: 'before' } as unknown as GeneratedEvent;
      await send(app, project.apiKey, [envelope(event, 'jrn-blank', 0)]);
    } finally {
      await app.close();
    }
    const aliasTokens = 'SELECT count(*) AS n FROM search_tokens WHERE project_id = $1 AND kind = $2';
    expect(Number((await db.pool.query<{ n: string }>(aliasTokens, [project.projectId, 'alias'])).rows[0]!.n)).toBe(0);
    // As ingestion wrote it before: the token of '' under the outgoing key.
    await db.pool.query("INSERT INTO search_tokens (project_id, token, journey_id, kind, key_id) VALUES ($1, $2, 'jrn-blank', 'alias', $3)", [
      project.projectId,
      searchTokenForWrite(keyrings.A, '').token,
      keyrings.A.currentKeyId,
    ]);
    expect((await cli(db.pool, keyrings.BA, ['rotate:reencrypt'])).status).toBe(0);
    expect((await cli(db.pool, keyrings.BA, ['rotate:status'])).status).toBe(0);
    expect(Number((await db.pool.query<{ n: string }>(aliasTokens, [project.projectId, 'alias'])).rows[0]!.n)).toBe(0);
  });
});
