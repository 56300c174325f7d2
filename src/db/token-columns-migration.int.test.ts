// Migration 0022 gives events trace and span token columns. A database made by the earlier
// schema holds those tokens as search_tokens rows, which the migration leaves in place (no SQL
// can recompute a keyed MAC): every search by a trace or span id answers as before, and so do
// searches that now find a value in both places.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { listMigrations, migrate } from './migrate.ts';
import type { Pool } from './pool.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const TOKEN_COLUMNS = 22;
// Parents before children, as the foreign keys need them.
const TABLES = ['projects', 'environments', 'api_keys', 'journeys', 'journey_aliases', 'search_tokens', 'event_ids', 'events'];
const UUID = 'A1B2C3D4-0000-4000-8000-00000000BEEF';

let source: TestDatabase;
let old: TestDatabase;
let project: SeededProject;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  source = await createTestDatabase();
  old = await createEmptyDatabase();
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await source.drop();
  await old.drop();
});

async function appOn(pool: Pool) {
  const { app } = await buildTestApp(pool, { keyring });
  apps.push(app);
  return app;
}

function event(id: string, journeyId: string, ids: { traceId?: string; spanId?: string }) {
  return {
    protocolVersion: '0.1',
    event: {
      id, journeyId, environment: 'production', service: 'checkout', entity: { type: 'order', id: `order-${journeyId}` },
      operation: 'received', name: 'step', timestamp: '2026-01-10T12:00:00.000Z', ...ids,
    },
  };
}

/** Journeys of several events: a trace id shared, span ids of their own, a blank and a UUID-form id. */
const SENT = [
  event('e1', 'jrn-a', { traceId: 'trace-a', spanId: 'span-a1' }),
  event('e2', 'jrn-a', { traceId: 'trace-a', spanId: 'span-a2' }),
  event('e3', 'jrn-a', { traceId: ' trace-a ', spanId: '   ' }),
  event('e4', 'jrn-b', { traceId: 'trace-b', spanId: 'shared-span' }),
  event('e5', 'jrn-b', { traceId: UUID, spanId: 'span-b2' }),
  event('e6', 'jrn-c', { traceId: 'shared-span', spanId: 'span-c1' }),
  event('e7', 'jrn-c', {}),
];
const QUERIES = ['trace-a', ' trace-a', 'span-a1', 'span-a2', 'trace-b', 'shared-span', UUID, UUID.toLowerCase(), 'span-b2', 'span-c1', 'absent'];

async function send(app: FastifyInstance, events: unknown[]) {
  const response = await app.inject({
    method: 'POST', url: '/v1/events/batch', headers: { ...bearer(project.apiKey), 'content-type': 'application/json' }, payload: JSON.stringify({ events }),
  });
  expect(response.statusCode).toBe(202);
}

async function search(app: FastifyInstance, q: string): Promise<string[]> {
  const response = await app.inject({ method: 'GET', url: `/v1/search?q=${encodeURIComponent(q)}`, headers: bearer(project.apiKey) });
  expect(response.statusCode).toBe(200);
  return (response.json() as { data: { items: Array<{ journeyId: string }> } }).data.items.map((item) => item.journeyId).sort();
}

async function migrateBefore(pool: Pool, version: number): Promise<void> {
  await pool.query(`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const migration of listMigrations().filter((m) => m.version < version)) {
    await pool.query(migration.sql);
    await pool.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
  }
}

async function rowsOf(pool: Pool, sql: string): Promise<string> {
  return JSON.stringify((await pool.query<{ rows: unknown }>(`SELECT coalesce(json_agg(t), '[]') AS rows FROM (${sql}) t`)).rows[0]!.rows);
}

describe('migration 0022', () => {
  it('keeps every trace and span search answer of a database made by the earlier schema', async () => {
    project = await seedProject(source.pool, keyring, 'tokens');
    const current = await appOn(source.pool);
    await send(current, SENT);
    const answers = new Map<string, string[]>();
    for (const q of QUERIES) answers.set(q, await search(current, q));
    expect(answers.get('shared-span')).toEqual(['jrn-b', 'jrn-c']);
    expect(answers.get(UUID.toLowerCase())).toEqual(['jrn-b']);
    expect(answers.get('trace-a')).toEqual(['jrn-a']);

    // The same data as the earlier schema stored it: trace and span tokens as search_tokens
    // rows, one per journey, kind and value (what ingestion wrote before 0022).
    await migrateBefore(old.pool, TOKEN_COLUMNS);
    for (const table of TABLES) {
      await old.pool.query(`INSERT INTO ${table} OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [
        await rowsOf(source.pool, `SELECT * FROM ${table}`),
      ]);
    }
    const eventTokenRows = await rowsOf(
      source.pool,
      `SELECT DISTINCT project_id, trace_token AS token, journey_id, 'trace_id' AS kind, search_key_id AS key_id FROM event_ids WHERE trace_token IS NOT NULL
       UNION SELECT DISTINCT project_id, span_token, journey_id, 'span_id', search_key_id FROM event_ids WHERE span_token IS NOT NULL`,
    );
    await old.pool.query('INSERT INTO search_tokens SELECT * FROM json_populate_recordset(NULL::search_tokens, $1::json)', [eventTokenRows]);
    const oldRows = (await old.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM search_tokens WHERE kind IN ('trace_id', 'span_id')`)).rows[0]!.n;
    expect(oldRows).toBe(9); // a: trace-a and 2 spans; b: trace-b, the UUID, 2 spans; c: shared-span and span-c1; none blank

    const applied = await migrate(old.pool);
    expect(applied.map((m) => m.version)).toContain(TOKEN_COLUMNS);
    const migrated = await appOn(old.pool);
    for (const q of QUERIES) expect({ q, found: await search(migrated, q) }).toEqual({ q, found: answers.get(q) });

    // New events write columns; a value found both ways answers each journey once.
    await send(migrated, [event('e8', 'jrn-a', { traceId: 'trace-a', spanId: 'span-a9' }), event('e9', 'jrn-d', { traceId: 'trace-b' })]);
    expect(await search(migrated, 'trace-a')).toEqual(['jrn-a']);
    expect(await search(migrated, 'trace-b')).toEqual(['jrn-b', 'jrn-d']);
    expect(await search(migrated, 'span-a9')).toEqual(['jrn-a']);
    const written = await old.pool.query(`SELECT count(*)::int AS n FROM search_tokens WHERE kind IN ('trace_id', 'span_id')`);
    expect(written.rows[0]!.n).toBe(oldRows);
  });
});
