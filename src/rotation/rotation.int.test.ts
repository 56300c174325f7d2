import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-key-service.ts';
import { decryptField, encryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { searchTokensForLookup } from '../crypto/search-tokens.ts';
import { normalizeIdentifier } from '../protocol/identifiers.ts';
import { bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { ROTATION_LOCK_KEY } from '../db/advisory-lock.ts';
import {
  KEYRING_A,
  KEYRING_B,
  KEYRING_BA,
  cli,
  envelopes,
  ingestBatch,
  journeyFixture,
  plainValues,
  type JourneyFixture,
} from './test-rotation-kit.ts';

/**
 * Key rotation end to end (interface-spec 5): data ingested under key A, the service restarted
 * under B with A as previous, rotate:reencrypt and rotate:status through the CLI, then B alone.
 */

let db: TestDatabase;
let project: SeededProject;
let idleKeyPrefix: string;
let idleKey: string;
const journeys: JourneyFixture[] = [journeyFixture(), journeyFixture(), journeyFixture()];
const destinationId = randomUUID();
const DESTINATION_HEADERS = JSON.stringify({ authorization: 'Bearer downstream-secret-value' });
const apps: FastifyInstance[] = [];

async function appUnder(keyring: Keyring): Promise<FastifyInstance> {
  const { app } = await buildTestApp(db.pool, { keyring });
  apps.push(app);
  return app;
}

/** Journey ids whose search tokens (looked up as the service does) match a plain value. */
async function lookup(keyring: Keyring, value: string, kind: string): Promise<Array<{ journey_id: string; key_id: string }>> {
  const tokens = searchTokensForLookup(keyring, normalizeIdentifier(value)).map((t) => t.token);
  // Trace and span ids of events stored since migration 0022 have their tokens in event_ids.
  const column = ({ trace_id: 'trace_token', span_id: 'span_token' } as Record<string, string>)[kind];
  const result = await db.pool.query<{ journey_id: string; key_id: string }>(
    `SELECT journey_id, key_id FROM search_tokens WHERE project_id = $1 AND token = ANY($2::text[]) AND kind = $3
     ${column ? `UNION SELECT journey_id, search_key_id FROM event_ids WHERE project_id = $1 AND ${column} = ANY($2::text[])` : ''}`,
    [project.projectId, tokens, kind],
  );
  return result.rows;
}

async function keyIdsIn(sql: string): Promise<string[]> {
  const result = await db.pool.query<{ key_id: string }>(sql);
  return [...new Set(result.rows.map((row) => row.key_id))].sort();
}

/** GET /v1/search as a reader uses it: the journey ids found for a value. */
async function searchApi(app: FastifyInstance, value: string): Promise<string[]> {
  const response = await app.inject({ method: 'GET', url: `/v1/search?q=${encodeURIComponent(value)}`, headers: bearer(project.apiKey) });
  expect(response.statusCode).toBe(200);
  return (response.json().data.items as Array<{ journeyId: string }>).map((item) => item.journeyId);
}

const allOutput = (run: { out: string[]; err: string[] }) => [...run.out, ...run.err].join('\n');

beforeAll(async () => {
  db = await createTestDatabase();
  const app = await appUnder(KEYRING_A);
  project = await seedProject(db.pool, KEYRING_A, 'acme');
  const idle = await createApiKey(db.pool, KEYRING_A, { projectSlug: 'acme', environmentName: 'production', name: 'idle', defaultRetentionDays: 30 });
  idleKeyPrefix = idle.keyPrefix;
  idleKey = idle.apiKey;
  const ingested = await ingestBatch(app, project.apiKey, journeys.flatMap(envelopes));
  expect(ingested.status).toBe(202);
  expect(ingested.results.every((r) => r.status === 'accepted')).toBe(true);
  await db.pool.query(
    `INSERT INTO replay_destinations (project_id, id, name, base_url, environment_type, headers_encrypted, header_names)
     VALUES ($1, $2, 'staging', 'http://localhost:9', 'test', $3, '{authorization}')`,
    [project.projectId, destinationId, encryptField(KEYRING_A, DESTINATION_HEADERS)],
  );
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await db.drop();
});

describe('key rotation from A to B', () => {
  it('under B with A as previous, old keys authenticate and old identifiers are found', async () => {
    const app = await appUnder(KEYRING_BA);
    const event = await app.inject({ method: 'GET', url: `/v1/events/${journeys[0]!.eventIds[0]}`, headers: bearer(project.apiKey) });
    expect(event.statusCode).toBe(200);
    // The key moved to B as it authenticated.
    const moved = await db.pool.query('SELECT hash_key_id FROM api_keys WHERE prefix = $1', [project.keyPrefix]);
    expect(moved.rows[0].hash_key_id).toBe(KEYRING_B.currentKeyId);

    for (const journey of journeys) {
      for (const [value, kind] of [
        [journey.entityId, 'entity_id'],
        [journey.aliases.email!, 'alias'],
        [journey.aliases.ref!.toLowerCase(), 'alias'],
        [journey.journeyId, 'journey_id'],
        [journey.traceId, 'trace_id'],
      ] as const) {
        expect((await lookup(KEYRING_BA, value, kind)).map((row) => row.journey_id)).toEqual([journey.journeyId]);
      }
      for (const value of [journey.entityId, journey.aliases.crm!, journey.aliases.ref!.toLowerCase(), journey.spanId]) {
        expect(await searchApi(app, value)).toEqual([journey.journeyId]);
      }
    }
    // Written under B meanwhile: a new event of an old journey and a new journey.
    const later = journeyFixture();
    const extra = envelopes(later);
    (extra[0] as { event: { journeyId: string } }).event.journeyId = journeys[0]!.journeyId;
    const ingested = await ingestBatch(app, project.apiKey, [extra[0], ...envelopes(journeyFixture())]);
    expect(ingested.results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'accepted']);
  });

  it('rotate:status exits 1 while data is under the previous key, and warns about API keys by prefix', async () => {
    const run = await cli(db.pool, KEYRING_BA, ['rotate:status']);
    expect(run.status).toBe(1);
    const text = allOutput(run);
    expect(text).toMatch(/entity ids: 3 under the previous key, 0 unreadable/);
    expect(text).toMatch(/alias values: 9 under the previous key/);
    expect(text).toMatch(/search tokens: 21 under the previous key/);
    expect(text).toMatch(/destination headers: 1 under the previous key/);
    expect(run.out.filter((line) => line.startsWith('warning: API key'))).toEqual([
      expect.stringContaining(`API key ${idleKeyPrefix} (acme/production) is still under the previous key`),
    ]);
    expect(text).toMatch(/event content hashes: 6 under the previous key/);
    for (const value of plainValues(journeys)) expect(text).not.toContain(value);
  });

  it('rotate:reencrypt exits 1 while another session holds the rotation lock', async () => {
    const holder = new pg.Client(db.url);
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [ROTATION_LOCK_KEY]);
      const run = await cli(db.pool, KEYRING_BA, ['rotate:reencrypt']);
      expect(run.status).toBe(1);
      expect(run.err.join('\n')).toMatch(/holds the rotation lock/);
      expect(await keyIdsIn('SELECT split_part(entity_id_encrypted, \'.\', 2) AS key_id FROM journeys')).toContain(KEYRING_A.currentKeyId);
    } finally {
      await holder.end();
    }
  });

  it('rotate:reencrypt moves everything but content hashes; rotate:status then exits 0', async () => {
    const run = await cli(db.pool, KEYRING_BA, ['rotate:reencrypt']);
    expect(run.err).toEqual([]);
    expect(run.status).toBe(0);
    expect(run.out.join('\n')).toMatch(/moved 3 entity ids, 9 alias values, 21 search tokens, 1 destination headers/);
    for (const value of plainValues(journeys)) expect(allOutput(run)).not.toContain(value);

    const b = KEYRING_B.currentKeyId;
    expect(await keyIdsIn(`SELECT split_part(entity_id_encrypted, '.', 2) AS key_id FROM journeys`)).toEqual([b]);
    expect(await keyIdsIn(`SELECT split_part(value_encrypted, '.', 2) AS key_id FROM journey_aliases`)).toEqual([b]);
    expect(await keyIdsIn('SELECT token_key_id AS key_id FROM journey_aliases')).toEqual([b]);
    expect(await keyIdsIn('SELECT key_id FROM search_tokens')).toEqual([b]);
    expect(await keyIdsIn('SELECT search_key_id AS key_id FROM event_ids WHERE trace_token IS NOT NULL OR span_token IS NOT NULL')).toEqual([b]);
    expect(await keyIdsIn('SELECT search_key_id AS key_id FROM event_ids WHERE trace_token IS NULL AND span_token IS NULL')).toEqual([]);
    expect(await keyIdsIn(`SELECT split_part(headers_encrypted, '.', 2) AS key_id FROM replay_destinations`)).toEqual([b]);
    // Content hashes stay under the key that wrote them (event-protocol 7).
    expect(await keyIdsIn('SELECT content_hash_key_id AS key_id FROM events')).toEqual([KEYRING_A.currentKeyId, b].sort());

    const status = await cli(db.pool, KEYRING_BA, ['rotate:status']);
    expect(status.status).toBe(0);
    expect(status.out.join('\n')).toMatch(/^done:/m);
    // The idle API key is still a warning, which does not change the exit status.
    expect(status.out.some((line) => line.includes(`API key ${idleKeyPrefix}`))).toBe(true);

    const again = await cli(db.pool, KEYRING_BA, ['rotate:reencrypt']);
    expect(again.status).toBe(0);
    expect(again.out.join('\n')).toMatch(/moved 0 entity ids, 0 alias values, 0 search tokens, 0 destination headers/);
  });

  it('under B alone everything reads and is found; an old event resent is 409; the idle key is 401', async () => {
    const app = await appUnder(KEYRING_B);
    for (const journey of journeys) {
      const response = await app.inject({ method: 'GET', url: `/v1/journeys/${journey.journeyId}`, headers: bearer(project.apiKey) });
      expect(response.statusCode).toBe(200);
      const data = response.json().data;
      expect(data.entity.id).toBe(journey.entityId);
      expect(data.aliases).toEqual(
        expect.arrayContaining([
          { type: 'crm', displayValue: journey.aliases.crm, displayable: true },
          { type: 'email', displayValue: 'some…com', displayable: false },
          { type: 'ref', displayValue: journey.aliases.ref, displayable: true },
        ]),
      );
      for (const [value, kind] of [
        [journey.entityId, 'entity_id'],
        [journey.aliases.email!, 'alias'],
        [journey.aliases.crm!, 'alias'],
        [journey.aliases.ref!, 'alias'],
        [journey.journeyId, 'journey_id'],
        [journey.traceId, 'trace_id'],
        [journey.spanId, 'span_id'],
        [journey.messageId, 'message_id'],
        [journey.correlationId, 'correlation_id'],
      ] as const) {
        expect(await lookup(KEYRING_B, value, kind)).toEqual([{ journey_id: journey.journeyId, key_id: KEYRING_B.currentKeyId }]);
        expect(await searchApi(app, value)).toEqual([journey.journeyId]);
      }
    }
    const destination = await db.pool.query('SELECT headers_encrypted FROM replay_destinations WHERE id = $1', [destinationId]);
    expect(decryptField(KEYRING_B, destination.rows[0].headers_encrypted)).toBe(DESTINATION_HEADERS);

    const [first] = envelopes(journeys[0]!);
    const resend = await app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: { 'content-type': 'application/json', ...bearer(project.apiKey) },
      payload: JSON.stringify(first),
    });
    expect(resend.statusCode).toBe(409);
    expect(resend.json().error.code).toBe('event_id_conflict');

    const rows = await db.pool.query('SELECT count(*)::int AS n FROM journey_aliases WHERE journey_id = $1', [journeys[1]!.journeyId]);
    expect(rows.rows[0].n).toBe(3);
    const idle = await app.inject({ method: 'GET', url: `/v1/journeys/${journeys[0]!.journeyId}`, headers: bearer(idleKey) });
    expect(idle.statusCode).toBe(401);
  });

  it('rotate:status under B alone reports the idle API key as unreadable and still exits 0', async () => {
    const run = await cli(db.pool, KEYRING_B, ['rotate:status']);
    expect(run.status).toBe(0);
    expect(run.out.join('\n')).toContain(`API key ${idleKeyPrefix} (acme/production) is under a key that is not configured`);
  });
});
