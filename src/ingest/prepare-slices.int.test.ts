// A batch is prepared in slices: other work waiting for the event loop (a search, the list)
// runs between its events instead of after the whole batch, and every event is still stored.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEnvironment } from '../projects/environments-sql.ts';
import { seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { envelope, keyring } from '../query/test-fixtures.ts';
import { ingestEvents, type IngestDeps, type IngestScope } from './ingest-service.ts';
import { systemMicros } from './received-clock.ts';

let db: TestDatabase;
let scope: IngestScope;

beforeAll(async () => {
  db = await createTestDatabase();
  const project = await seedProject(db.pool, keyring, 'slices');
  scope = { projectId: project.projectId, environment: (await findEnvironment(db.pool, project.projectId, 'production'))! };
});
afterAll(async () => db.drop());

/** Prepares a batch and tells, for each event, whether a callback queued before the batch had run. */
async function ingestWatching(prepareSliceMs: number | undefined, tag: string) {
  let other = false;
  const seen: boolean[] = [];
  const deps: IngestDeps = {
    pool: db.pool, keyring, logger: pino({ level: 'silent' }), allowFullPayloadCapture: false, maxEventPayloadBytes: 262_144,
    micros: () => (seen.push(other), systemMicros()),
    ...(prepareSliceMs === undefined ? {} : { prepareSliceMs }),
  };
  const events = Array.from({ length: 20 }, (_, i) => envelope({ id: `evt-${tag}-${i}`, journeyId: `jrn-${tag}-${i % 5}`, timestamp: '2026-02-10T10:00:00.000Z' }, 'production'));
  setImmediate(() => (other = true));
  const results = await ingestEvents(deps, scope, events, 'batch');
  return { seen, results };
}

describe('preparing a batch', () => {
  it('hands the event loop back between events once a slice is used up', async () => {
    const { seen, results } = await ingestWatching(0, 'zero');
    expect(seen.slice(1).every(Boolean)).toBe(true);
    expect(results.map((r) => r.status)).toEqual(Array(20).fill('accepted'));
  });

  it('runs a batch that fits in one slice without a pause', async () => {
    const { seen, results } = await ingestWatching(60_000, 'long');
    expect(seen.every((ran) => !ran)).toBe(true);
    expect(results.map((r) => r.status)).toEqual(Array(20).fill('accepted'));
  });
});
