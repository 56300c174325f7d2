import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { findEnvironment } from '../projects/environments-sql.ts';
import { TEST_ENCRYPTION_KEY, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { insertEvents, type EventRow } from './ingest-sql.ts';

/**
 * The events statement sends one array literal per column. Whatever a batch holds (any Unicode,
 * quotes, backslashes, braces, the word NULL, NULLs, huge and odd numbers, one id twice), what it
 * stores in events and event_ids reads back exactly as what the statement it replaced (one JSON
 * document decoded by jsonb_to_recordset, kept here as it was) stored, or both refuse the batch
 * with the same SQLSTATE.
 */

const JSON_EVENTS_SQL = `WITH r AS (
   SELECT r.*, timestamptz 'epoch' + (r.ts_ms * 1000) * interval '1 microsecond' AS event_timestamp,
          timestamptz 'epoch' + r.received_us * interval '1 microsecond' AS received_at
     FROM jsonb_to_recordset($2::jsonb) AS r(id text, journey_id text, environment_id uuid, operation text, name text, service text,
      ts_ms int8, received_us int8, duration_ms int, parent_event_id text, trace_id text, span_id text,
      trace_token text, span_token text, search_key_id text, message_id text, correlation_id text, has_input boolean,
      has_output boolean, has_error boolean, input_payload jsonb, output_payload jsonb, payload_diff jsonb, error jsonb, runtime_metadata jsonb, deployment_metadata jsonb, custom_metadata jsonb,
      stated_alias_ids int8[], content_hash text, content_hash_key_id text)
 ), ids AS (
   INSERT INTO event_ids (project_id, id, journey_id, received_at, trace_token, span_token, search_key_id)
   SELECT $1, r.id, r.journey_id, r.received_at, r.trace_token, r.span_token, r.search_key_id FROM r
 )
 INSERT INTO events (project_id, id, journey_id, environment_id, operation, name, service, event_timestamp, received_at,
    duration_ms, parent_event_id, trace_id, span_id, message_id, correlation_id, has_input, has_output, has_error,
    input_payload, output_payload, payload_diff, error, runtime_metadata, deployment_metadata, custom_metadata,
    stated_alias_ids, content_hash, content_hash_key_id)
 SELECT $1, r.id, r.journey_id, r.environment_id, r.operation, r.name, r.service, r.event_timestamp, r.received_at,
    r.duration_ms, r.parent_event_id, r.trace_id, r.span_id, r.message_id, r.correlation_id, r.has_input, r.has_output,
    r.has_error, r.input_payload, r.output_payload, r.payload_diff, r.error, r.runtime_metadata, r.deployment_metadata, r.custom_metadata,
    r.stated_alias_ids, r.content_hash, r.content_hash_key_id
   FROM r`;

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
/** The same environment name in two projects: the old statement writes into one, the new into the other. */
const scopes: Array<{ projectId: string; environmentId: string }> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  for (const slug of ['rows-json', 'rows-arrays']) {
    const project = await seedProject(db.pool, keyring, slug);
    scopes.push({ projectId: project.projectId, environmentId: (await findEnvironment(db.pool, project.projectId, 'production'))!.id });
  }
});
afterAll(async () => {
  await db.drop();
});

/** Text PostgreSQL can store: no NUL, no unpaired surrogate (prepare refuses both before storage). */
const storable = (s: string) => !/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
const awkward = fc.constantFrom('NULL', 'null', '"', '\\', '\\"', '{', '}', '{}', ',', ' ', '', '{1,2}', 'a"b\\c', '\u{1F600}', 'é', '\t\n');
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }).filter(storable), awkward, fc.string({ maxLength: 6 }).map((s) => `${s}"\\{`));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const json = fc.oneof(
  fc.jsonValue().filter((value) => !/\\u0000|\\ud[89a-f]/i.test(JSON.stringify(value) ?? '')),
  fc.constantFrom<unknown>(null, undefined, 0, -0, 1e308, -1e-300, 9007199254740993n.toString(), { a: [1.5e20, 'NULL', null, { '"': '\\' }] }, [], {}, '', 'null', 'NULL'),
);
const SAFE_MAX = Number.MAX_SAFE_INTEGER;

function rowArb(journeyIds: string[], environmentId: string): fc.Arbitrary<Omit<EventRow, 'id'> & { idSeed: string }> {
  return fc.record({
    idSeed: fc.oneof(fc.constantFrom('one', 'two'), text),
    journey_id: fc.constantFrom(...journeyIds),
    environment_id: fc.constant(environmentId),
    operation: fc.constantFrom('received', 'validated', 'failed', 'completed'),
    name: text,
    service: text,
    // Years 0001 to 9999, as validation admits; received instants anywhere a clock may put them.
    ts_ms: fc.integer({ min: -62135596800000, max: 253402300799999 }),
    received_us: fc.integer({ min: 0, max: 4102444800000000 }),
    duration_ms: maybe(fc.oneof(fc.integer({ min: 0, max: 2147483647 }), fc.constant(2147483647))),
    parent_event_id: maybe(text),
    trace_id: maybe(text),
    span_id: maybe(text),
    trace_token: maybe(fc.string({ unit: 'binary-ascii', maxLength: 8 }).filter(storable)),
    span_token: maybe(text),
    search_key_id: maybe(text),
    message_id: maybe(text),
    correlation_id: maybe(text),
    has_input: fc.boolean(),
    has_output: fc.boolean(),
    has_error: fc.boolean(),
    input_payload: json,
    output_payload: json,
    payload_diff: json,
    error: json,
    runtime_metadata: json,
    deployment_metadata: json,
    custom_metadata: json,
    stated_alias_ids: fc.array(fc.integer({ min: 1, max: SAFE_MAX }), { maxLength: 4 }),
    content_hash: text,
    content_hash_key_id: text,
  });
}

/** Every column but project_id, as PostgreSQL prints it, in a stable order. */
async function readBack(pool: Pool, projectId: string, prefix: string) {
  const events = await pool.query<{ row: string }>(
    `SELECT (to_jsonb(e) - 'project_id')::text AS row FROM events e WHERE project_id = $1 AND starts_with(id, $2) ORDER BY id COLLATE "C"`,
    [projectId, prefix],
  );
  const ids = await pool.query<{ row: string }>(
    `SELECT (to_jsonb(i) - 'project_id')::text AS row FROM event_ids i WHERE project_id = $1 AND starts_with(id, $2) ORDER BY id COLLATE "C"`,
    [projectId, prefix],
  );
  return { events: events.rows.map((r) => r.row), ids: ids.rows.map((r) => r.row) };
}

async function store(scope: { projectId: string; environmentId: string }, journeyIds: string[], rows: EventRow[], json: boolean) {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    for (const id of journeyIds) {
      await client.query(
        `INSERT INTO journeys (project_id, id, environment_id, entity_type, entity_id_encrypted, started_at, last_event_at)
         VALUES ($1, $2, $3, 'order', 'x', now(), now())`,
        [scope.projectId, id, scope.environmentId],
      );
    }
    const stored = rows.map((row) => ({ ...row, environment_id: scope.environmentId }));
    if (json) await client.query(JSON_EVENTS_SQL, [scope.projectId, JSON.stringify(stored)]);
    else await insertEvents(client, scope.projectId, stored);
    await client.query('COMMIT');
    return 'stored';
  } catch (error) {
    await client.query('ROLLBACK');
    return `refused ${(error as { code?: string }).code}`;
  } finally {
    client.release();
  }
}

let run = 0;

describe('the events statement', () => {
  it('stores any batch exactly as the JSON-document statement did', async () => {
    const batch = fc.integer({ min: 1, max: 3 }).chain((journeys) => {
      const journeyIds = Array.from({ length: journeys }, (_, i) => `j${i}`);
      return fc.array(rowArb(journeyIds, 'env'), { minLength: 1, maxLength: 8 }).map((rows) => ({ journeyIds, rows }));
    });
    let stored = 0;
    await fc.assert(
      fc.asyncProperty(batch, async ({ journeyIds, rows }) => {
        const prefix = `r${++run}:`;
        const ids = journeyIds.map((id) => prefix + id);
        const events: EventRow[] = rows.map(({ idSeed, journey_id, ...row }) => ({ ...row, id: prefix + idSeed, journey_id: prefix + journey_id }));
        const [before, after] = [await store(scopes[0]!, ids, events, true), await store(scopes[1]!, ids, events, false)];
        expect(after).toBe(before);
        if (before === 'stored') stored++;
        const [a, b] = [await readBack(db.pool, scopes[0]!.projectId, prefix), await readBack(db.pool, scopes[1]!.projectId, prefix)];
        expect(b.events).toEqual(a.events.map((row) => row.replaceAll(scopes[0]!.environmentId, scopes[1]!.environmentId)));
        expect(b.ids).toEqual(a.ids);
      }),
      { numRuns: 150 },
    );
    // Most batches store (a repeated id refuses the whole batch in both): the comparison is of rows, not of errors.
    expect(stored).toBeGreaterThan(50);
  });

  it('sends one parameter per column, the payloads as JSON arrays, and no JSON document of the batch', async () => {
    const sent: Array<{ text: string; values: unknown[] }> = [];
    const recorder = { query: async (config: { text: string; values: unknown[] }) => (sent.push(config), { rows: [] }) } as unknown as Pool;
    const row = (id: string, input: unknown): EventRow => ({
      id, journey_id: 'j', environment_id: scopes[0]!.environmentId, operation: 'received', name: 'n', service: 's', ts_ms: 0, received_us: 0,
      duration_ms: null, parent_event_id: null, trace_id: null, span_id: null, trace_token: null, span_token: null, search_key_id: null,
      message_id: null, correlation_id: null, has_input: input !== null, has_output: false, has_error: false, input_payload: input, output_payload: null,
      payload_diff: null, error: null, runtime_metadata: null, deployment_metadata: null, custom_metadata: null, stated_alias_ids: [3, 4],
      content_hash: 'h', content_hash_key_id: 'k',
    });
    await insertEvents(recorder, scopes[0]!.projectId, [row('a', { x: 1 }), row('b', null)]);
    const [statement] = sent;
    expect(statement!.text).not.toContain('jsonb_to_recordset');
    // The project, 23 short columns, 7 payload columns.
    expect(statement!.values).toHaveLength(31);
    expect(statement!.values).toContain('{"a","b"}');
    expect(statement!.values).toContain('{"{3,4}","{3,4}"}');
    expect(statement!.values).toContain('[{"x":1},null]');
  });

  it('refuses a batch that holds one id twice, as the primary key of event_ids always did', async () => {
    const prefix = `dup${++run}:`;
    const row: EventRow = {
      id: `${prefix}e`, journey_id: `${prefix}j`, environment_id: '', operation: 'received', name: 'n', service: 's', ts_ms: 0, received_us: 0,
      duration_ms: null, parent_event_id: null, trace_id: null, span_id: null, trace_token: null, span_token: null, search_key_id: null,
      message_id: null, correlation_id: null, has_input: false, has_output: false, has_error: false, input_payload: null, output_payload: null,
      payload_diff: null, error: null, runtime_metadata: null, deployment_metadata: null, custom_metadata: null, stated_alias_ids: [],
      content_hash: 'h', content_hash_key_id: 'k',
    };
    expect(await store(scopes[1]!, [`${prefix}j`], [row, { ...row, name: 'other' }], false)).toBe('refused 23505');
    expect(await store(scopes[1]!, [`${prefix}j`], [row], false)).toBe('stored');
  });
});
