// Shared set-up of the deletion integration tests (not a test file itself): data goes in through
// POST /v1/events/batch with an API key, as instrumented services send it.

import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { createApiKey } from '../auth/api-key-service.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { TEST_ADMIN_TOKEN } from '../../test/helpers/app.ts';

export interface TestEvent {
  journeyId: string;
  entityId: string;
  entityType?: string;
  environment?: string;
  aliases?: Record<string, string>;
  timestamp?: string;
  traceId?: string;
  input?: unknown;
  id?: string;
}

let eventCounter = 0;

export function envelope(event: TestEvent) {
  return {
    protocolVersion: '0.1',
    event: {
      id: event.id ?? `evt_${++eventCounter}_${randomUUID().slice(0, 8)}`,
      journeyId: event.journeyId,
      environment: event.environment ?? 'production',
      service: 'deletion-tests',
      entity: { type: event.entityType ?? 'order', id: event.entityId },
      operation: 'received',
      name: 'receive',
      timestamp: event.timestamp ?? '2026-01-10T10:00:00.000Z',
      ...(event.aliases ? { aliases: event.aliases } : {}),
      ...(event.traceId ? { traceId: event.traceId } : {}),
      ...(event.input !== undefined ? { input: event.input } : {}),
    },
  };
}

/** Sends the events in batches of 100 (the protocol's limit); every one must be accepted. */
export async function ingest(app: FastifyInstance, apiKey: string, events: TestEvent[]): Promise<void> {
  for (let from = 0; from < events.length; from += 100) {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/events/batch',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ events: events.slice(from, from + 100).map(envelope) }),
    });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(202);
    const results = response.json().data.results as Array<{ status: string }>;
    expect(results.every((result) => result.status === 'accepted'), response.body.slice(0, 300)).toBe(true);
  }
}

/** An API key for another environment of an existing project (the environment is created). */
export async function keyFor(pool: Pool, keyring: Keyring, slug: string, environment: string, retentionDays = 30): Promise<string> {
  const created = await createApiKey(pool, keyring, { projectSlug: slug, environmentName: environment, name: 'test', defaultRetentionDays: retentionDays });
  return created.apiKey;
}

export function admin(projectId: string): Record<string, string> {
  return { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': projectId };
}

export async function journeyIds(db: Queryable, projectId: string): Promise<string[]> {
  const result = await db.query<{ id: string }>('SELECT id FROM journeys WHERE project_id = $1 ORDER BY id COLLATE "C"', [projectId]);
  return result.rows.map((row) => row.id);
}

/** Rows of each table that hangs off a journey, for cascade checks. */
export async function countTree(db: Queryable, projectId: string, journeyId: string) {
  const count = async (sql: string) => (await db.query<{ n: number }>(sql, [projectId, journeyId])).rows[0]!.n;
  return {
    journeys: await count('SELECT count(*)::int AS n FROM journeys WHERE project_id = $1 AND id = $2'),
    events: await count('SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND journey_id = $2'),
    aliases: await count('SELECT count(*)::int AS n FROM journey_aliases WHERE project_id = $1 AND journey_id = $2'),
    tokens: await count('SELECT count(*)::int AS n FROM search_tokens WHERE project_id = $1 AND journey_id = $2'),
    replayRuns: await count(
      'SELECT count(*)::int AS n FROM replay_runs r JOIN events e ON e.project_id = r.project_id AND e.id = r.event_id WHERE r.project_id = $1 AND e.journey_id = $2',
    ),
  };
}

/** A replay run for every event of the journey (written by SQL: replay has its own tests). */
export async function addReplayRuns(db: Queryable, projectId: string, journeyId: string): Promise<number> {
  const destinationId = randomUUID();
  await db.query(
    `INSERT INTO replay_destinations (project_id, id, name, base_url, environment_type, headers_encrypted)
     VALUES ($1, $2, 'dest', 'http://127.0.0.1:9/', 'test', 'x')`,
    [projectId, destinationId],
  );
  const result = await db.query(
    `INSERT INTO replay_runs (project_id, id, event_id, destination_id, method, path, status)
     SELECT project_id, gen_random_uuid(), id, $3, 'POST', '/', 'completed' FROM events WHERE project_id = $1 AND journey_id = $2`,
    [projectId, journeyId, destinationId],
  );
  return result.rowCount ?? 0;
}

export async function setLastEventAt(db: Queryable, projectId: string, journeyIds: string[], at: Date): Promise<void> {
  await db.query('UPDATE journeys SET last_event_at = $3 WHERE project_id = $1 AND id = ANY($2::text[])', [projectId, journeyIds, at]);
}

export async function auditRows(db: Queryable, projectId: string, action: string) {
  const result = await db.query<{ id: number; details: Record<string, unknown> }>(
    'SELECT id, details FROM audit_log WHERE project_id = $1 AND action = $2 ORDER BY id',
    [projectId, action],
  );
  return result.rows;
}

/**
 * Kills the session holding the retention lock in this test's database, as an operator or a
 * failover would. pg_locks spans the whole cluster, so the database must be named: test files
 * running beside this one hold the same key in their own databases.
 */
export async function killRetentionLockSession(db: Queryable, key: number): Promise<void> {
  await db.query(
    `SELECT pg_terminate_backend(pid) FROM pg_locks
      WHERE locktype = 'advisory' AND objid = $1 AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [key],
  );
}
