import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-key-service.ts';
import { loadConfig } from '../config/config.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { findEnvironment } from '../projects/environments-sql.ts';
import { TEST_ENCRYPTION_KEY, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { createSingleEventCoalescer, type GroupStart } from './coalesce.ts';
import { prepareContext, type EventResult, type IngestDeps, type IngestScope } from './ingest-service.ts';
import { prepareEvent } from './prepare.ts';
import { systemMicros } from './received-clock.ts';
import { countRows, testEnvelope as envelope, uid } from './test-fixtures.ts';

/**
 * Group commit of single events with the default settings (src/ingest/coalesce.ts): a group
 * starts at once when nothing of its environment is being stored, and events that arrive while
 * a group's transaction runs gather into the next group, which starts when that one ends. A
 * group's transaction is held here by a row lock on a journey that a test connection takes, so
 * "while a group commits" is a state the test controls, not a matter of timing.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
/** The shipped defaults: no fixed wait, a batch's size. */
const defaults = loadConfig({});
const SETTINGS = { maxWaitMs: defaults.ingestCoalesceMaxWaitMs, maxEvents: defaults.ingestCoalesceMaxEvents };

const HOLD_LOCK = 734_001;

let db: TestDatabase;
let secondPool: Pool;
let project: SeededProject;
let scope: IngestScope;
let stagingScope: IngestScope;

const depsOf = (pool: Pool): IngestDeps => ({ pool, keyring, logger: pino({ level: 'silent' }), micros: systemMicros, allowFullPayloadCapture: false, maxEventPayloadBytes: 262_144 });

beforeAll(async () => {
  db = await createTestDatabase();
  secondPool = createPool({ connectionString: db.url, max: 10, statementTimeoutMs: 15_000 });
  project = await seedProject(db.pool, keyring, 'group-commit');
  await createApiKey(db.pool, keyring, { projectSlug: 'group-commit', environmentName: 'staging', name: 'staging', defaultRetentionDays: 30 });
  scope = { projectId: project.projectId, environment: (await findEnvironment(db.pool, project.projectId, 'production'))! };
  stagingScope = { projectId: project.projectId, environment: (await findEnvironment(db.pool, project.projectId, 'staging'))! };
  // A real constraint violation for chosen ids: the database refuses them as it would any unforeseen value.
  await db.pool.query("ALTER TABLE events ADD CONSTRAINT test_poisoned_event CHECK (id NOT LIKE 'evt_poison%')");
  // A transaction that stored an 'evt_hold…' event waits at its COMMIT (a deferred trigger) for an
  // advisory lock a test holds: "statements done, COMMIT still flushing" as a state the test controls.
  await db.pool.query(`CREATE FUNCTION test_hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock(${HOLD_LOCK}); RETURN NULL; END $$`);
  await db.pool.query(`CREATE CONSTRAINT TRIGGER test_hold_commit AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.id LIKE 'evt_hold%') EXECUTE FUNCTION test_hold_commit()`);
});
afterAll(async () => {
  await secondPool.end();
  await db.drop();
});

interface Started extends GroupStart { size: number }

/** A coalescer with the default settings, recording each group's start and each fallback. */
function coalescerOn(pool: Pool) {
  const deps = depsOf(pool);
  const starts: Started[] = [];
  let fallbacks = 0;
  const coalescer = createSingleEventCoalescer(deps, SETTINGS, {
    group: (size, start) => starts.push({ size, ...start! }),
    fallback: () => fallbacks++,
  });
  const store = (body: ReturnType<typeof envelope>, on: IngestScope = scope): Promise<EventResult> => {
    const preparation = prepareEvent(body, prepareContext(deps, on));
    if (!preparation.ok) throw new Error('the fixture event must be valid');
    return coalescer.store(on, { prepared: preparation.prepared, receivedAtUs: systemMicros() });
  };
  return { coalescer, starts, store, fallbacks: () => fallbacks };
}

/** Holds a row lock on a stored journey: a group writing to it waits, its transaction open, until release. */
async function holdJourney(journeyId: string) {
  const client = await db.pool.connect();
  await client.query('BEGIN');
  await client.query('SELECT 1 FROM journeys WHERE project_id = $1 AND id = $2 FOR UPDATE', [project.projectId, journeyId]);
  return async () => {
    await client.query('COMMIT');
    client.release();
  };
}

/** A stored journey (through a coalescer of its own) and a lock on it. */
async function lockedJourney() {
  const journey = envelope();
  expect((await coalescerOn(db.pool).store(journey)).status).toBe('accepted');
  return { journeyId: journey.event.journeyId as string, release: await holdJourney(journey.event.journeyId as string) };
}

/** Waits until `count` transactions of this database wait for a lock: the blocked groups are in flight. */
async function blockedBackends(count: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const waiting = await countRows(db.pool, "pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", []);
    if (waiting >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`fewer than ${count} transactions wait for the held lock`);
}

const brief = (result: EventResult) => (result.status === 'accepted' ? `accepted duplicate=${result.duplicate}` : `rejected ${result.error.code}`);

describe('group commit of single events (default settings)', () => {
  it('stores a lone event at once: its group starts in the same call, nothing of its environment being stored', async () => {
    const { store, starts } = coalescerOn(db.pool);
    const lone = envelope();
    const answer = store(lone);
    // Started before store() returned: no timer stands between the event and its transaction.
    expect(starts).toEqual([{ size: 1, inFlightAtStart: 0, gathered: false }]);
    expect(brief(await answer)).toBe('accepted duplicate=false');
    expect(await countRows(db.pool, 'events WHERE id = $1', [lone.event.id])).toBe(1);
    // The next lone event after that commit starts at once too.
    const next = store(envelope());
    expect(starts).toEqual([{ size: 1, inFlightAtStart: 0, gathered: false }, { size: 1, inFlightAtStart: 0, gathered: false }]);
    expect(brief(await next)).toBe('accepted duplicate=false');
  });

  it('gathers the events that arrive while a group runs its statements into the next group, started when that one reaches its COMMIT', async () => {
    const { store, starts } = coalescerOn(db.pool);
    const { journeyId, release } = await lockedJourney();
    const first = store(envelope({ journeyId }));
    await blockedBackends(1);
    const later: Array<Promise<EventResult>> = [];
    const events = Array.from({ length: 4 }, () => envelope());
    for (const event of events) {
      // Spread out: each would have had a transaction of its own after any short fixed wait.
      await new Promise((resolve) => setTimeout(resolve, 20));
      later.push(store(event));
    }
    expect(starts).toEqual([{ size: 1, inFlightAtStart: 0, gathered: false }]);
    await release();
    expect((await Promise.all([first, ...later])).map(brief)).toEqual(Array(5).fill('accepted duplicate=false'));
    // One transaction for the four, started as the first reached its COMMIT (its statements done).
    expect(starts).toEqual([{ size: 1, inFlightAtStart: 0, gathered: false }, { size: 4, inFlightAtStart: 1, gathered: true }]);
    expect(await countRows(db.pool, 'events WHERE id = ANY($1)', [events.map((e) => e.event.id)])).toBe(4);
  });

  it('starts the next group while the previous one waits at its COMMIT, two in flight at most', async () => {
    const { store, starts } = coalescerOn(db.pool);
    const holder = await db.pool.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [HOLD_LOCK]);
    let held: Array<Promise<EventResult>> = [];
    let third: Promise<EventResult> | null = null;
    try {
      held = [store(envelope({ id: `evt_hold_${uid()}` }))];
      await blockedBackends(1);
      // The first group's statements are done: the next starts beside it and runs its own.
      held.push(store(envelope({ id: `evt_hold_${uid()}` })));
      expect(starts).toEqual([{ size: 1, inFlightAtStart: 0, gathered: false }, { size: 1, inFlightAtStart: 1, gathered: false }]);
      await blockedBackends(2);
      // Two groups wait at their COMMIT: a third event gathers until one of them ends.
      third = store(envelope());
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(starts).toHaveLength(2);
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [HOLD_LOCK]);
      holder.release();
    }
    expect((await Promise.all([...held, third!])).map(brief)).toEqual(Array(3).fill('accepted duplicate=false'));
    expect(starts).toHaveLength(3);
    expect(starts[2]).toMatchObject({ size: 1, gathered: true });
  });

  it('answers each request of a gathered group with its own verdict, decided in arrival order', async () => {
    const { store, starts } = coalescerOn(db.pool);
    const stored = envelope();
    const storedOther = envelope();
    const staging = envelope({ environment: 'staging' });
    for (const [body, on] of [[stored, scope], [storedOther, scope], [staging, stagingScope]] as const) expect((await store(body, on)).status).toBe('accepted');
    const { journeyId, release } = await lockedJourney();
    const before = starts.length;
    const blocked = store(envelope({ journeyId }));
    await blockedBackends(1);
    const twin = envelope();
    const rival = envelope();
    const requests: Record<string, ReturnType<typeof envelope>> = {
      fresh: envelope(),
      resent: stored,
      changed: { ...storedOther, event: { ...storedOther.event, name: 'another name' } },
      twinA: twin,
      twinB: structuredClone(twin),
      rivalA: rival,
      rivalB: { ...rival, event: { ...rival.event, name: 'another name' } },
      otherEnvironmentsJourney: envelope({ journeyId: staging.event.journeyId }),
      unstorable: envelope({ name: 'bad\u0000name' }),
    };
    const answers = Object.entries(requests).map(([name, body]) => [name, store(body)] as const);
    await release();
    expect(brief(await blocked)).toBe('accepted duplicate=false');
    const verdicts = Object.fromEntries(await Promise.all(answers.map(async ([name, answer]) => [name, brief(await answer)])));
    expect(verdicts).toEqual({
      fresh: 'accepted duplicate=false',
      resent: 'accepted duplicate=true',
      changed: 'rejected event_id_conflict',
      twinA: 'accepted duplicate=false',
      twinB: 'accepted duplicate=true',
      rivalA: 'accepted duplicate=false',
      rivalB: 'rejected event_id_conflict',
      otherEnvironmentsJourney: 'rejected journey_environment_mismatch',
      unstorable: 'rejected unstorable_payload',
    });
    expect(starts.slice(before)).toEqual([{ size: 1, inFlightAtStart: 0, gathered: false }, { size: 9, inFlightAtStart: 1, gathered: true }]);
  });

  it('stores a gathered group one by one when its transaction fails: the bad event is refused, its neighbours stored', async () => {
    const { store, starts, fallbacks } = coalescerOn(db.pool);
    const { journeyId, release } = await lockedJourney();
    const blocked = store(envelope({ journeyId }));
    await blockedBackends(1);
    const good = [envelope(), envelope(), envelope()];
    const poisoned = envelope({ id: `evt_poison_${uid()}` });
    const answers = [store(good[0]!), store(poisoned), store(good[1]!), store(good[2]!)];
    await release();
    await blocked;
    expect((await Promise.all(answers)).map(brief)).toEqual(['accepted duplicate=false', 'rejected internal_error', 'accepted duplicate=false', 'accepted duplicate=false']);
    expect(starts.at(-1)).toEqual({ size: 4, inFlightAtStart: 1, gathered: true });
    expect(fallbacks()).toBe(1);
    expect(await countRows(db.pool, 'events WHERE id = ANY($1)', [good.map((e) => e.event.id)])).toBe(3);
    expect(await countRows(db.pool, 'events WHERE id = $1', [poisoned.event.id])).toBe(0);
  });

  it('two instances gathering copies and rivals of the same events at once: one stores each id, the other gets the rules of separate requests', async () => {
    const instances = [coalescerOn(db.pool), coalescerOn(secondPool)];
    const { journeyId, release } = await lockedJourney();
    const blocked = instances.map((instance) => instance.store(envelope({ journeyId })));
    await blockedBackends(2);
    const shared = `jrn_shared_${uid()}`;
    const events = Array.from({ length: 12 }, (_, i) => envelope({ journeyId: i % 2 === 0 ? shared : `jrn_${uid()}`, name: `step ${i}` }));
    // Every third event: the second instance gets other content under the same id.
    const copies = events.map((event, i) => (i % 3 === 0 ? { ...event, event: { ...event.event, name: `rival ${i}` } } : event));
    const answers = events.map((event, i) => Promise.all([instances[0]!.store(event), instances[1]!.store(copies[i]!)]));
    await release();
    await Promise.all(blocked);
    const results = await Promise.all(answers);
    for (const [i, pair] of results.entries()) {
      const winners = pair.filter((r) => r.status === 'accepted' && !r.duplicate);
      expect(winners, `event ${i}: exactly one instance stores it`).toHaveLength(1);
      const other = pair.find((r) => r !== winners[0])!;
      expect(brief(other), `event ${i}`).toBe(i % 3 === 0 ? 'rejected event_id_conflict' : 'accepted duplicate=true');
    }
    for (const instance of instances) expect(instance.starts.at(-1)).toEqual({ size: 12, inFlightAtStart: 1, gathered: true });
    const stored = await db.pool.query<{ event_count: number }>('SELECT event_count FROM journeys WHERE project_id = $1 AND id = $2', [project.projectId, shared]);
    expect(stored.rows).toEqual([{ event_count: 6 }]);
  }, 30_000);
});
