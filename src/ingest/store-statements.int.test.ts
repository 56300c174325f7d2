import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import { findEnvironment } from '../projects/environments-sql.ts';
import { TEST_ENCRYPTION_KEY, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { storeWithRetry, type IngestScope } from './ingest-service.ts';
import { prepareEvent, type PrepareContext } from './prepare.ts';
import { storeEvents, type StoreScope } from './store.ts';
import { countRows, testEnvelope, uid } from './test-fixtures.ts';

/**
 * The statements one batch costs (docs/ingestion.md): a batch of new journeys is three statements
 * inside its transaction whatever its size, and what it writes in one statement is what the
 * separate statements wrote (one token row per value, aliases with their ids on the events).
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let scope: StoreScope;
let ctx: PrepareContext;
let ingestScope: IngestScope;

beforeAll(async () => {
  db = await createTestDatabase();
  const project = await seedProject(db.pool, keyring, 'statements');
  const environment = (await findEnvironment(db.pool, project.projectId, 'production'))!;
  scope = { projectId: project.projectId, environmentId: environment.id };
  ingestScope = { projectId: project.projectId, environment };
  ctx = {
    keyring, environmentName: 'production', allowFullPayloadCapture: false, maxEventPayloadBytes: 1_000_000,
    capture: { captureMode: environment.captureMode, redactionPaths: environment.redactionPaths, captureAllowlist: environment.captureAllowlist },
  };
});
afterAll(async () => {
  await db.drop();
});

/** Stores the envelopes in one transaction on a real connection, counting the statements sent. */
async function store(envelopes: unknown[]) {
  const client = await db.pool.connect();
  const statements: string[] = [];
  const counting: Queryable = {
    query: ((config: unknown, values?: unknown) => {
      statements.push(typeof config === 'string' ? config : (config as { text: string }).text);
      return (client.query as (c: unknown, v?: unknown) => unknown)(config, values);
    }) as Queryable['query'],
  };
  try {
    await client.query('BEGIN');
    const inputs = envelopes.map((envelope) => {
      const preparation = prepareEvent(envelope, ctx);
      if (!preparation.ok) throw new Error(preparation.refusal.code);
      return { prepared: preparation.prepared, receivedAtUs: Date.now() * 1000 };
    });
    const verdicts = await storeEvents(counting, keyring, scope, inputs);
    await client.query('COMMIT');
    return { verdicts, statements };
  } finally {
    client.release();
  }
}

const inputOf = (envelope: unknown) => {
  const preparation = prepareEvent(envelope, ctx);
  if (!preparation.ok) throw new Error(preparation.refusal.code);
  return { prepared: preparation.prepared, receivedAtUs: Date.now() * 1000 };
};

const tokensOf = (journeyId: string) => countRows(db.pool, 'search_tokens WHERE project_id = $1 AND journey_id = $2', [scope.projectId, journeyId]);

describe('the statements of a batch', () => {
  it('stores 100 events of 25 new journeys in three statements: the journeys\' lock and the event lookup are one', async () => {
    const envelopes = Array.from({ length: 25 }, () => `jrn_${uid()}`).flatMap((journeyId, j) =>
      Array.from({ length: 4 }, (_, step) =>
        testEnvelope({ journeyId, traceId: `trace-${uid()}`, ...(step === 0 ? { aliases: { email: `b${j}@example.com` } } : {}) })));
    const { verdicts, statements } = await store(envelopes);
    expect(verdicts.every((v) => v.status === 'accepted' && !v.duplicate)).toBe(true);
    expect(statements).toHaveLength(3);
  });

  it('sees an event id that a concurrent writer committed while the batch waited for its journey', async () => {
    const journeyId = `jrn_${uid()}`;
    await store([testEnvelope({ journeyId })]);
    const copy = testEnvelope({ journeyId });
    const rival = testEnvelope({ journeyId, id: copy.event.id, name: 'other content' });
    const holder = await db.pool.connect();
    await holder.query('BEGIN');
    expect((await storeEvents(holder, keyring, scope, [inputOf(copy)]))[0]).toMatchObject({ status: 'accepted', duplicate: false });
    // The lock and the event lookup are one statement, whose snapshot predates the holder's commit.
    const deps = { pool: db.pool, keyring, logger: pino({ level: 'silent' }), micros: () => Date.now() * 1000, allowFullPayloadCapture: false, maxEventPayloadBytes: 1_000_000 };
    const racing = [storeWithRetry(deps, ingestScope, [inputOf(copy)]), storeWithRetry(deps, ingestScope, [inputOf(rival)])];
    const until = Date.now() + 10_000;
    while ((await countRows(db.pool, "pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", [])) < 2) {
      if (Date.now() > until) throw new Error('the racing batches never waited for the journey');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await holder.query('COMMIT');
    holder.release();
    const [same, other] = await Promise.all(racing);
    expect(same).toEqual([{ status: 'accepted', eventId: copy.event.id, journeyId, duplicate: true }]);
    expect(other![0]).toMatchObject({ status: 'rejected', refusal: { code: 'event_id_conflict' } });
    expect(await countRows(db.pool, 'events WHERE project_id = $1 AND id = $2', [scope.projectId, copy.event.id])).toBe(1);
  });

  it('indexes a value stated twice on a new journey once, and skips what a stored journey already holds', async () => {
    const journeyId = `jrn_${uid()}`;
    const first = await store([
      testEnvelope({ journeyId, messageId: 'msg-same', traceId: 'trace-same', aliases: { email: 'once@example.com' } }),
      testEnvelope({ journeyId, messageId: 'msg-same', traceId: 'trace-same', aliases: { email: ' once@example.com ' } }),
    ]);
    expect(first.verdicts.map((v) => v.status)).toEqual(['accepted', 'accepted']);
    // journey id, entity id, one message id, one alias (trace and span ids: columns of event_ids)
    expect(await tokensOf(journeyId)).toBe(4);

    const second = await store([testEnvelope({ journeyId, messageId: 'msg-same', correlationId: 'corr-new', aliases: { email: 'once@example.com' } })]);
    expect(second.verdicts.map((v) => v.status)).toEqual(['accepted']);
    expect(await tokensOf(journeyId)).toBe(5);
    const stated = await db.pool.query<{ ids: number[] }>(
      'SELECT stated_alias_ids AS ids FROM events WHERE project_id = $1 AND journey_id = $2 ORDER BY received_at',
      [scope.projectId, journeyId],
    );
    const aliasIds = stated.rows.map((row) => row.ids.map(Number));
    expect(new Set(aliasIds.flat()).size).toBe(1);
    expect(aliasIds.every((ids) => ids.length === 1)).toBe(true);
  });
});
