import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-key-service.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { searchTokenForWrite } from '../crypto/search-tokens.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { normalizeIdentifier } from '../protocol/identifiers.ts';
import { NO_TRACE, countRows, journeyTrace as traceOf, testEnvelope as envelope, uid } from './test-fixtures.ts';

/**
 * What ingestion leaves in the database, through HTTP: nothing for a refused event, the journey
 * state machine (3.4) step by step, displayable aliases and masking (4.3), search tokens.
 * (The request-level behaviour of the routes is in ingest.int.test.ts.)
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });

let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;
let stagingKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app } = await buildTestApp(db.pool, { keyring }));
  project = await seedProject(db.pool, keyring, 'acme');
  stagingKey = (await createApiKey(db.pool, keyring, { projectSlug: 'acme', environmentName: 'staging', name: 'staging', defaultRetentionDays: 30 })).apiKey;
});
afterAll(async () => {
  await app.close();
  await db.drop();
});


function send(url: string, body: unknown, key: string = project.apiKey) {
  return app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...bearer(key) }, payload: JSON.stringify(body) });
}

function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body.slice(0, 300)).toBe(status);
  expect(response.json().error.code).toBe(code);
}

const count = (sql: string, params: unknown[]) => countRows(db.pool, sql, params);
const journeyTrace = (journeyId: string) => traceOf(db.pool, project.projectId, journeyId);

describe('what a refused event leaves', () => {
  it('nothing: no event, journey, alias or search token, whatever refused it', async () => {
    const accepted = envelope();
    const owned = envelope({ environment: 'staging' });
    await send('/v1/events', owned, stagingKey);
    const extras = { aliases: { email: 'refused@example.com' }, traceId: 'trace-refused', correlationId: 'corr-refused' };
    const refused = [
      envelope({ ...extras, id: accepted.event.id }), // event_id_conflict on a new journey
      envelope({ ...extras, name: 'bad\u0000name' }), // unstorable_payload
      envelope({ ...extras, journeyId: owned.event.journeyId }), // journey_environment_mismatch
      envelope({ ...extras, environment: 'staging' }), // unauthorized_environment
      envelope({ ...extras, durationMs: -1 }), // invalid_event
    ];
    const response = await send('/v1/events/batch', { events: [accepted, ...refused] });
    const codes = response.json().data.results.map((r: { error?: { code: string } }) => r.error?.code ?? 'accepted');
    expect(codes).toEqual(['accepted', 'event_id_conflict', 'unstorable_payload', 'journey_environment_mismatch', 'unauthorized_environment', 'invalid_event']);
    for (const env of refused.filter((e) => e.event.journeyId !== owned.event.journeyId)) {
      expect(await journeyTrace(env.event.journeyId as string)).toEqual(NO_TRACE);
    }
    expect(await journeyTrace(owned.event.journeyId as string)).toMatchObject({ events: 1, aliases: 0 });
    expect(await count('events WHERE id = $1', [accepted.event.id])).toBe(1);
    for (const value of ['refused@example.com', 'trace-refused', 'corr-refused']) {
      expect(await count('search_tokens WHERE token = $1', [searchTokenForWrite(keyring, value).token])).toBe(0);
    }
  });
});

describe('ids that cannot be stored (2.7 step 6, refused before any lookup)', () => {
  const unstorable = [
    ['a NUL in event.id', { id: `evt_${uid()}\u0000` }, 'event.id'],
    ['a NUL in event.journeyId', { journeyId: `jrn_${uid()}\u0000` }, 'event.journeyId'],
    ['an unpaired surrogate in event.id', { id: `evt_${uid()}\uD800` }, 'event.id'],
    ['an unpaired surrogate in event.journeyId', { journeyId: `jrn_${uid()}\uDC00` }, 'event.journeyId'],
  ] as const;

  it.each(unstorable)('single route: %s is 400 unstorable_payload', async (_name, fields, path) => {
    const response = await send('/v1/events', envelope(fields));
    expectError(response, 400, 'unstorable_payload');
    expect(response.json().error.details[0].path).toBe(path);
  });

  it('batch route: each is refused alone and the batch stays set-based (no transaction per event)', async () => {
    // Counts the pool's checkouts during one request: the per-event fallback would add one per event.
    const connect = db.pool.connect.bind(db.pool);
    let checkouts = 0;
    db.pool.connect = ((...args: unknown[]) => (checkouts++, (connect as (...a: unknown[]) => unknown)(...args))) as typeof db.pool.connect;
    const checkoutsOf = async (events: unknown[]) => {
      checkouts = 0;
      const response = await send('/v1/events/batch', { events });
      expect(response.statusCode).toBe(202);
      return { checkouts, results: response.json().data.results as Array<{ status: string; error?: { code: string; httpStatus: number } }> };
    };
    try {
      const baseline = await checkoutsOf([envelope(), envelope()]);
      const bad = unstorable.map(([, fields]) => envelope(fields));
      const mixed = await checkoutsOf([envelope(), ...bad, envelope()]);
      expect(mixed.results.map((r) => r.error?.code ?? r.status)).toEqual(['accepted', ...bad.map(() => 'unstorable_payload'), 'accepted']);
      expect(mixed.results.filter((r) => r.error).every((r) => r.error!.httpStatus === 400)).toBe(true);
      expect(mixed.checkouts).toBe(baseline.checkouts);
    } finally {
      db.pool.connect = connect;
    }
  });
});

describe('journey state through HTTP (3.4)', () => {
  const at = (second: number) => `2026-08-06T16:31:${String(second).padStart(2, '0')}.000Z`;

  it('follows failed → retried → active keeping completedAt, and late arrivals', async () => {
    const journeyId = `jrn_${uid()}`;
    const steps: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ operation: 'received', timestamp: at(10) }, { status: 'active', failedStep: null, completedAt: null }],
      [{ operation: 'completed', timestamp: at(11) }, { status: 'completed', failedStep: null, completedAt: at(11) }],
      [{ operation: 'failed', name: 'charge card', timestamp: at(12) }, { status: 'failed', failedStep: 'charge card', completedAt: at(11) }],
      [{ operation: 'delivered', name: 'charge card (attempt 2)', timestamp: at(13) }, { status: 'failed', failedStep: 'charge card', lastStep: 'charge card (attempt 2)' }],
      [{ operation: 'retried', name: 'retry charge', timestamp: at(14) }, { status: 'active', failedStep: null, completedAt: at(11), lastStep: 'retry charge' }],
      [{ operation: 'delivered', name: 'late', error: { message: 'timeout' }, timestamp: at(5) }, { status: 'failed', failedStep: 'late', lastStep: 'retry charge', startedAt: at(5) }],
      [{ operation: 'completed', name: 'stale completion', timestamp: at(13) }, { status: 'failed', failedStep: 'late', completedAt: at(11) }],
      [{ operation: 'completed', name: 'done', timestamp: at(20) }, { status: 'completed', failedStep: null, completedAt: at(20), lastStep: 'done' }],
    ];
    for (const [index, [fields, expected]] of steps.entries()) {
      expect((await send('/v1/events', envelope({ journeyId, name: `step ${index}`, ...fields }))).statusCode).toBe(202);
      const journey = await app.inject({ method: 'GET', url: `/v1/journeys/${journeyId}`, headers: bearer(project.apiKey) });
      expect(journey.json().data, `after step ${index}`).toMatchObject({ ...expected, eventCount: index + 1 });
    }
  });
});

describe('aliases and search tokens', () => {
  const journey = async (id: string) =>
    (await app.inject({ method: 'GET', url: `/v1/journeys/${id}`, headers: bearer(project.apiKey) })).json().data;
  const displayValues = async (journeyId: string) =>
    Object.fromEntries(
      (await db.pool.query<{ alias_type: string; display_value: string | null }>(
        'SELECT alias_type, display_value FROM journey_aliases WHERE project_id = $1 AND journey_id = $2',
        [project.projectId, journeyId],
      )).rows.map((r) => [r.alias_type, r.display_value]),
    );

  it('displayable only while every statement listed the type; NUL never gets a plain copy; masked otherwise', async () => {
    const journeyId = `jrn_${uid()}`;
    const nul = 'nul\u0000value-123';
    const first = envelope({
      journeyId,
      aliases: { email: 'someone@example.com', ref: 'greenhouse:4567', short: 'abc', nul },
      displayableAliases: ['email', 'nul', 'notCarried'],
    });
    expect((await send('/v1/events', first)).statusCode).toBe(202);
    expect((await journey(journeyId)).aliases).toEqual([
      { type: 'email', displayValue: 'someone@example.com', displayable: true },
      { type: 'nul', displayValue: nul, displayable: true },
      { type: 'ref', displayValue: 'gree…567', displayable: false },
      { type: 'short', displayValue: '…', displayable: false },
    ]);
    expect(await displayValues(journeyId)).toEqual({ email: 'someone@example.com', nul: null, ref: null, short: null });

    // A refused statement is no statement: the conflict below does not clear `nul`.
    expectError(await send('/v1/events', { ...first, event: { ...first.event, displayableAliases: [] } }), 409, 'event_id_conflict');
    await send('/v1/events', envelope({ journeyId, aliases: { email: '  someone@example.com ' } }));
    await send('/v1/events', envelope({ journeyId, aliases: { email: 'someone@example.com' }, displayableAliases: ['email'] }));
    const after = await journey(journeyId);
    expect(after.aliases.slice(0, 2)).toEqual([
      { type: 'email', displayValue: 'some…com', displayable: false },
      { type: 'nul', displayValue: nul, displayable: true },
    ]);
    expect(await displayValues(journeyId)).toMatchObject({ email: null, nul: null });
    const detail = await app.inject({ method: 'GET', url: `/v1/events/${first.event.id}`, headers: bearer(project.apiKey) });
    expect(detail.json().data.aliases[0]).toEqual({ type: 'email', displayValue: 'some…com', displayable: false });
  });

  it('a later statement in the same batch clears a flag the batch set', async () => {
    const journeyId = `jrn_${uid()}`;
    const aliases = { ticket: 'TCK-0000012345' };
    await send('/v1/events/batch', {
      events: [envelope({ journeyId, aliases, displayableAliases: ['ticket'] }), envelope({ journeyId, aliases })],
    });
    expect((await journey(journeyId)).aliases).toEqual([{ type: 'ticket', displayValue: 'TCK-…345', displayable: false }]);
    expect(await displayValues(journeyId)).toEqual({ ticket: null });
  });

  it('writes a search token for the entity id, every alias, the journey, trace, span, message and correlation ids', async () => {
    const journeyId = `jrn_${uid()}`;
    const uuid = '3F2504E0-4F89-11D3-9A0C-0305E82C3301';
    await send('/v1/events/batch', {
      events: [
        envelope({
          journeyId, entity: { type: 'order', id: '  ORD-77 ' }, aliases: { email: 'x@example.com', external: uuid },
          traceId: 'trace-1', spanId: 'span-1', messageId: 'msg-1', correlationId: 'corr-1',
        }),
        envelope({ journeyId, aliases: { email: 'x@example.com', crm: 'crm-9' }, traceId: 'trace-2' }),
      ],
    });
    // Trace and span ids' tokens sit in event_ids (migration 0022), the others are rows.
    const rows = (await db.pool.query<{ kind: string; token: string }>(
      `SELECT kind, token FROM search_tokens WHERE project_id = $1 AND journey_id = $2
       UNION ALL SELECT 'trace_id', trace_token FROM event_ids WHERE project_id = $1 AND journey_id = $2 AND trace_token IS NOT NULL
       UNION ALL SELECT 'span_id', span_token FROM event_ids WHERE project_id = $1 AND journey_id = $2 AND span_token IS NOT NULL`,
      [project.projectId, journeyId],
    )).rows;
    const columnRows = await db.pool.query(
      `SELECT count(*)::int AS n FROM search_tokens WHERE project_id = $1 AND journey_id = $2 AND kind IN ('trace_id', 'span_id')`,
      [project.projectId, journeyId],
    );
    expect(columnRows.rows[0].n).toBe(0);
    const keys = await db.pool.query('SELECT DISTINCT search_key_id FROM event_ids WHERE project_id = $1 AND journey_id = $2', [project.projectId, journeyId]);
    expect(keys.rows).toEqual([{ search_key_id: keyring.currentKeyId }]);
    const expected = ([
      ['entity_id', 'ORD-77'], ['journey_id', journeyId], ['alias', 'x@example.com'], ['alias', uuid], ['alias', 'crm-9'],
      ['trace_id', 'trace-1'], ['trace_id', 'trace-2'], ['span_id', 'span-1'], ['message_id', 'msg-1'], ['correlation_id', 'corr-1'],
    ] as const).map(([kind, value]) => ({ kind: kind as string, token: searchTokenForWrite(keyring, normalizeIdentifier(value)).token }));
    const byKey = (a: { kind: string; token: string }, b: { kind: string; token: string }) => (a.kind + a.token < b.kind + b.token ? -1 : 1);
    expect(rows.sort(byKey)).toEqual(expected.sort(byKey));
  });
});
