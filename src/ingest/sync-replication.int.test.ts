import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { startStreamingPair, type StreamingPair } from '../../test/helpers/standby.ts';
import { testEnvelope } from './test-fixtures.ts';

/**
 * A primary with a synchronous standby (as Patroni's synchronous mode runs it) that stops
 * confirming. A COMMIT then waits for it; statement_timeout does not end that wait (PostgreSQL
 * stops the statement timer before it commits), but a cancel does, and PostgreSQL then reports
 * the COMMIT as a success with only a WARNING: the transaction is committed locally, not on the
 * standby, and a failover to the standby loses it. Such an event must not be acknowledged.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const STATEMENT_TIMEOUT_MS = 1_000;
let pair: StreamingPair;
let pool: Pool;
let project: SeededProject;
let app: FastifyInstance;

/** Names the synchronous standby the primary waits for; an absent name stands for one that stopped confirming. */
async function waitForStandby(name: string): Promise<void> {
  await onPrimary(`ALTER SYSTEM SET synchronous_standby_names = '${name}'`);
  await onPrimary('SELECT pg_reload_conf()');
}

async function onPrimary<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client(pair.primaryUrl);
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  pair = await startStreamingPair();
  await waitForStandby('standby');
  const deadline = Date.now() + 30_000;
  while ((await onPrimary<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_replication WHERE sync_state = 'sync'"))[0]!.n !== 1) {
    if (Date.now() > deadline) throw new Error('the standby never became synchronous');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  pool = createPool({ connectionString: pair.primaryUrl, max: 5, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
  project = await seedProject(pool, keyring, 'sync-replication');
  ({ app } = await buildTestApp(pool, { keyring, config: { statementTimeoutMs: STATEMENT_TIMEOUT_MS } }));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await pool?.end();
  if (pair) await waitForStandby('');
  await pair?.stop();
});

const post = (url: string, payload: unknown) =>
  app.inject({ method: 'POST', url, headers: { ...bearer(project.apiKey), 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

/**
 * Sends the request while the primary waits for a standby that is not there, and cancels every
 * backend waiting for it (pg_cancel_backend, as an operator or a tool would) until it is answered.
 */
async function sendCancellingTheWait(url: string, payload: unknown) {
  let answered = false;
  const answer = post(url, payload).finally(() => (answered = true));
  while (!answered) {
    await onPrimary("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return answer;
}

describe('ingestion with a synchronous standby that stops confirming', () => {
  it('never acknowledges an event whose commit reported success only after its wait for the standby was cancelled', async () => {
    expect((await post('/v1/events', testEnvelope())).statusCode).toBe(202);

    await waitForStandby('absent_standby');
    const single = testEnvelope();
    const response = await sendCancellingTheWait('/v1/events', single);
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe('database_unavailable');
    expect(response.headers['retry-after']).toBeDefined();

    const batch = await sendCancellingTheWait('/v1/events/batch', { events: [testEnvelope(), testEnvelope()] });
    const results = (batch.json() as { data: { results: Array<{ status: string }> } }).data.results;
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);

    // Once the standby confirms again, the client's resend is answered 202 as a duplicate of the
    // event that was committed locally: nothing is stored twice.
    await waitForStandby('standby');
    const resend = await post('/v1/events', single);
    expect(resend.statusCode).toBe(202);
    expect(resend.json().data).toMatchObject({ eventId: single.event.id, duplicate: true });
  }, 60_000);
});
