// Shared set-up of the tests of events in day partitions (not a test itself): a test database,
// an app whose clock the test sets (ingestion stamps that time as the event's arrival, which
// picks its day partition), a project with an API key, and the batch route and the timeline
// read as a client calls them.

import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { createKeyring } from '../../src/crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from './app.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface DayEvent {
  id: string;
  journeyId: string;
  operation: string;
  name: string;
  timestamp: string;
}

export interface BatchResult {
  status: string;
  duplicate?: boolean;
  error?: { code: string };
}

export interface EventDays {
  db: TestDatabase;
  app: FastifyInstance;
  project: SeededProject;
  /** Sets the app's clock: what ingestion records as the time of arrival. */
  setClock(iso: string): void;
  /** Sends events in one batch through POST /v1/events/batch, requires 202, returns the results. */
  send(...events: DayEvent[]): Promise<BatchResult[]>;
  /** The event ids of a journey's timeline, through GET /v1/journeys/:id/events. */
  timelineIds(journeyId: string): Promise<string[]>;
  close(): Promise<void>;
}

/** A fresh database and app, project `slug` with a `production` key; the clock starts at 0. */
export async function createEventDays(slug: string): Promise<EventDays> {
  const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
  let clock = 0;
  const db = await createTestDatabase();
  const { app } = await buildTestApp(db.pool, { keyring, now: () => clock });
  const project = await seedProject(db.pool, keyring, slug);
  const auth = { authorization: `Bearer ${project.apiKey}` };
  return {
    db,
    app,
    project,
    setClock(iso) {
      clock = Date.parse(iso);
    },
    async send(...events) {
      const envelopes = events.map(({ id, journeyId, operation, name, timestamp }) => ({
        protocolVersion: '0.1',
        event: {
          id, journeyId, environment: 'production', service: 'checkout', entity: { type: 'order', id: `entity-${journeyId}` },
          operation, name, timestamp,
        },
      }));
      const response = await app.inject({
        method: 'POST',
        url: '/v1/events/batch',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ events: envelopes }),
      });
      expect(response.statusCode, response.body).toBe(202);
      return response.json().data.results as BatchResult[];
    },
    async timelineIds(journeyId) {
      const timeline = await app.inject({ method: 'GET', url: `/v1/journeys/${journeyId}/events`, headers: auth });
      expect(timeline.statusCode, timeline.body).toBe(200);
      return timeline.json().data.items.map((event: { id: string }) => event.id);
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}
