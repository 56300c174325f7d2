import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { classifyEvent } from '../protocol/envelope-types.ts';
import { applyEvent, compareCodePoints, compareTimeline, newJourneyState, type JourneyState, type SummaryEvent, type TimelineKey } from './journey-summary.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';

/**
 * Concurrent ingestion of one journey over a real port. The stored summary must be what
 * applyEvent gives when the events are applied one at a time in the order the journey's row
 * lock let them in. That order is not the timeline: a failure stamped early but applied late
 * still fails the journey (3.5), so status and completedAt depend on it. Test-only triggers
 * record it (an identity column filled while the lock is held) and widen a race window; they
 * observe the real database, they do not replace it.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
const CLIENTS = 8;
const REQUEST_TIMEOUT_MS = 30_000;
/** Seconds the race trigger holds a journey insert, so that two creators surely overlap. */
const RACE_WINDOW_SECONDS = 0.4;

let db: TestDatabase;
let app: FastifyInstance;
let agent: Agent;
let project: SeededProject;
let baseUrl: string;

beforeAll(async () => {
  db = await createTestDatabase({ poolMax: 16 });
  await db.pool.query(`
    CREATE TABLE apply_log (seq bigint GENERATED ALWAYS AS IDENTITY, journey_id text, event_id text, txid bigint DEFAULT txid_current());
    CREATE FUNCTION log_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO apply_log (journey_id, event_id) VALUES (NEW.journey_id, NEW.id); RETURN NULL; END $$;
    CREATE TRIGGER log_apply AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION log_apply();
    CREATE SEQUENCE journey_insert_attempts;
    CREATE FUNCTION slow_race_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id LIKE 'jrn_race_%' THEN PERFORM nextval('journey_insert_attempts'); PERFORM pg_sleep(${RACE_WINDOW_SECONDS}); END IF;
        RETURN NEW;
      END $$;
    CREATE TRIGGER slow_race_insert BEFORE INSERT ON journeys FOR EACH ROW EXECUTE FUNCTION slow_race_insert();
  `);
  ({ app } = await buildTestApp(db.pool, { keyring }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  agent = new Agent({ connections: CLIENTS, keepAliveTimeout: 10_000 });
  project = await seedProject(db.pool, keyring, 'concurrency');
});
afterAll(async () => {
  await agent?.close();
  await app?.close();
  await db?.drop();
});

/** A small seeded PRNG (mulberry32): a failing run can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function shuffle<T>(items: T[], rand: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

interface Sent {
  id: string;
  journeyId: string;
  operation: string;
  name: string;
  service: string;
  timestamp: string;
  journeyLabel?: string;
  error?: { message: string };
  [key: string]: unknown;
}

const SERVICES = ['api', 'worker', 'Zeta', 'ñandú', '\uFFFDreplacement', '\u{1F680}rocket'];
const KINDS: Array<[string, boolean]> = [
  ['received', false], ['transformed', false], ['failed', false], ['retried', false], ['delivered', true], ['completed', false],
  ['validated', false], ['retried', true], ['consumed', false], ['completed', false], ['published', false], ['retried', false],
];

/**
 * `count` (≥ 10) events of one journey: every operation class, labels, equal timestamps (every
 * 9th event shares its predecessor's), aliases whose display rule does not depend on order, and
 * a last instant shared by four labelled steps and a failure, so that receivedAt decides label
 * and lastStep there. That failure is the only one at the last instant: status and failedStep
 * then come out the same in every application order.
 */
function journeyEvents(journeyId: string, count: number, rand: () => number): Sent[] {
  const events: Sent[] = [];
  let ms = Date.parse('2026-08-06T10:00:00.000Z');
  const base = (i: number | string, operation: string, timestamp: string) => ({
    id: `evt_${journeyId}_${String(i).padStart(3, '0')}`, journeyId, environment: 'production', entity: { type: 'order', id: 'ord-1001' },
    operation, name: `step ${i} ${operation}`, timestamp, service: SERVICES[Number(i) % SERVICES.length] ?? 'api',
  });
  for (let i = 0; i < count - 5; i++) {
    if (i % 9 !== 0) ms += 1 + Math.floor(rand() * 4);
    const [operation, withError] = KINDS[i % KINDS.length]!;
    events.push({
      ...base(i, operation, formatTimestamp(ms)),
      traceId: `trace-${i % 7}`, input: { step: i, items: [{ sku: 'A-1', qty: i % 3 }] }, output: { step: i, ok: !withError },
      ...(withError ? { error: { message: `attempt ${i} failed` } } : {}),
      ...(i % 5 === 0 || i % 9 === 0 || i % 9 === 8 ? { journeyLabel: `label ${i}` } : {}),
      ...(i % 4 === 0 ? { aliases: { email: 'someone@example.com' }, displayableAliases: ['email'] } : {}),
      ...(i % 6 === 1 ? { aliases: { phone: '+1 555 0100 222' }, displayableAliases: i === 7 ? [] : ['phone'] } : {}),
    });
  }
  const last = formatTimestamp(ms + 1000);
  for (let i = count - 5; i < count - 1; i++) events.push({ ...base(i, 'delivered', last), journeyLabel: `label ${i}` });
  events.push({ ...base('last', 'failed', last), name: 'final failure' });
  return events;
}

async function postBatch(events: unknown[]) {
  const response = await fetch(`${baseUrl}/v1/events/batch`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${project.apiKey}` },
    body: JSON.stringify({ events: events.map((event) => ({ protocolVersion: '0.1', event })) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = (await response.json()) as { data: { results: Array<{ status: string; duplicate?: boolean; error?: unknown }> } };
  return { status: response.status, results: body.data.results };
}

function summaryEvent(sent: Sent, receivedAtUs: number): SummaryEvent {
  return {
    key: { timestampMs: Date.parse(sent.timestamp), receivedAtUs, eventId: sent.id },
    name: sent.name,
    service: sent.service,
    eventClass: classifyEvent(sent),
    ...(sent.journeyLabel !== undefined ? { journeyLabel: sent.journeyLabel } : {}),
  };
}

function replay(events: SummaryEvent[]): JourneyState {
  let state = newJourneyState(events[0]!);
  for (const event of events) state = applyEvent(state, event);
  return state;
}

/** The summary as GET /v1/journeys/:id shows it, plus the timeline keys behind label, lastStep, failedStep. */
function view(state: JourneyState) {
  const ts = (ms: number | null) => (ms === null ? null : formatTimestamp(ms));
  return {
    status: state.status, eventCount: state.eventCount, startedAt: ts(state.startedAtMs), lastEventAt: ts(state.lastEventAtMs),
    completedAt: ts(state.completedAtMs), services: state.services, label: state.label, lastStep: state.lastStep,
    failedStep: state.failedStep, labelKey: state.labelKey, lastStepKey: state.lastStepKey, failedKey: state.failedKey,
  };
}

async function storedView(journeyId: string) {
  const response = await fetch(`${baseUrl}/v1/journeys/${journeyId}`, { dispatcher: agent, headers: { authorization: `Bearer ${project.apiKey}` } });
  expect(response.status).toBe(200);
  const journey = ((await response.json()) as { data: Record<string, unknown> }).data;
  const us = (column: string) => `floor(extract(epoch from ${column}) * 1e6)::int8`;
  const ms = (column: string) => `floor(extract(epoch from ${column}) * 1e3)::int8`;
  const { rows } = await db.pool.query<Record<string, string | number | null>>(
    `SELECT label_event_id, ${ms('label_event_ts')} AS label_ms, ${us('label_event_received_at')} AS label_us,
            last_step_event_id, ${ms('last_step_event_ts')} AS last_step_ms, ${us('last_step_received_at')} AS last_step_us,
            failed_event_id, ${ms('failed_event_ts')} AS failed_ms, ${us('failed_event_received_at')} AS failed_us
       FROM journeys WHERE project_id = $1 AND id = $2`,
    [project.projectId, journeyId],
  );
  const row = rows[0]!;
  const key = (prefix: string): TimelineKey | null =>
    row[`${prefix}_event_id`] === null
      ? null
      : { timestampMs: Number(row[`${prefix}_ms`]), receivedAtUs: Number(row[`${prefix}_us`]), eventId: String(row[`${prefix}_event_id`]) };
  return {
    status: journey.status, eventCount: journey.eventCount, startedAt: journey.startedAt, lastEventAt: journey.lastEventAt,
    completedAt: journey.completedAt, services: journey.services, label: journey.label, lastStep: journey.lastStep,
    failedStep: journey.failedStep, labelKey: key('label'), lastStepKey: key('last_step'), failedKey: key('failed'),
    aliases: journey.aliases,
  };
}

/** Journey inserts tried by the race trigger so far (a sequence: rolled-back attempts count too). */
async function insertAttempts(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    'SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM journey_insert_attempts',
  );
  return Number(rows[0]!.n);
}

describe('concurrent ingestion of one journey', () => {
  it('240 events in random order over 8 connections give the summary applyEvent gives', { timeout: 120_000 }, async () => {
    const seed = Date.now() % 4_294_967_296;
    const rand = random(seed);
    const journeyId = `jrn_conc_${seed}`;
    const sent = journeyEvents(journeyId, 240, rand);
    // Each client gets a share of the shuffled events, cut into small batches up front.
    const clients: Sent[][][] = Array.from({ length: CLIENTS }, () => []);
    const shuffled = shuffle(sent, rand);
    for (let start = 0, i = 0; start < shuffled.length; i++) {
      const size = 1 + Math.floor(rand() * 6);
      clients[i % CLIENTS]!.push(shuffled.slice(start, start + size));
      start += size;
    }
    await Promise.all(
      clients.map(async (batches) => {
        for (const batch of batches) {
          const { status, results } = await postBatch(batch);
          expect(status, `seed ${seed}`).toBe(202);
          for (const result of results) expect(result, `seed ${seed}`).toEqual({ eventId: expect.any(String), status: 'accepted', duplicate: false });
        }
      }),
    );

    const { rows } = await db.pool.query<{ id: string; us: number; ms: number }>(
      `SELECT id, floor(extract(epoch from received_at) * 1e6)::int8 AS us, floor(extract(epoch from event_timestamp) * 1e3)::int8 AS ms
         FROM events WHERE project_id = $1 AND journey_id = $2`,
      [project.projectId, journeyId],
    );
    expect(rows).toHaveLength(sent.length);
    const byId = new Map(sent.map((event) => [event.id, event]));
    const events = new Map(rows.map((row) => [row.id, summaryEvent(byId.get(row.id)!, row.us)]));
    for (const row of rows) expect(row.ms).toBe(events.get(row.id)!.key.timestampMs);

    const applied = (await db.pool.query<{ event_id: string }>('SELECT event_id FROM apply_log WHERE journey_id = $1 ORDER BY seq', [journeyId]))
      .rows.map((row) => events.get(row.event_id)!);
    expect(applied).toHaveLength(sent.length);
    const timeline = [...events.values()].sort((a, b) => compareTimeline(a.key, b.key));

    const stored = await storedView(journeyId);
    const { aliases, ...summary } = stored;
    expect(summary, `seed ${seed}: stored = applied in lock order`).toEqual(view(replay(applied)));
    // What depends only on the timeline agrees with a replay in timeline order; completedAt is
    // the last completion applied, which depends on the order of arrival (3.4 rule 2b).
    const { completedAt: _orderDependent, ...timelineView } = view(replay(timeline));
    expect(summary, `seed ${seed}: stored = applied in timeline order`).toMatchObject(timelineView);
    expect(summary).toMatchObject({ status: 'failed', failedStep: 'final failure', eventCount: 240 });
    expect(summary.services).toEqual([...new Set(sent.map((e) => e.service))].sort(compareCodePoints));
    // At the shared last instant the latest-received step wins (ties broken by receivedAt, then id).
    expect(summary.lastStep).toBe(timeline.at(-1)!.name);
    expect(summary.label).toBe(timeline.filter((e) => e.journeyLabel !== undefined).at(-1)!.journeyLabel);
    // Every-statement rule: one statement without the listing cleared phone, whatever its arrival.
    expect(aliases).toEqual([
      { type: 'email', displayValue: 'someone@example.com', displayable: true },
      { type: 'phone', displayValue: '+1 5…222', displayable: false },
    ]);
  });

  it('two batches creating the same new journey at once both succeed, with the right eventCount', { timeout: 60_000 }, async () => {
    const rand = random(7);
    for (let round = 0; round < 3; round++) {
      const journeyId = `jrn_race_${round}`;
      const [shared, a, b] = [journeyEvents(journeyId, 12, rand).slice(0, 3), journeyEvents(`${journeyId}a`, 12, rand), journeyEvents(`${journeyId}b`, 12, rand)];
      const own = (events: Sent[]) => events.map((event) => ({ ...event, journeyId }));
      const before = await insertAttempts();
      const [first, second] = await Promise.all([postBatch([...shared, ...own(a)]), postBatch([...own(b), ...shared])]);
      // Both tried to insert the journey: one of them lost and was retried against the winner's row.
      expect((await insertAttempts()) - before, `round ${round}`).toBe(2);
      expect([first.status, second.status]).toEqual([202, 202]);
      const results = [...first.results, ...second.results];
      expect(results.every((r) => r.status === 'accepted')).toBe(true);
      expect(results.filter((r) => r.duplicate).length).toBe(shared.length);

      const response = await fetch(`${baseUrl}/v1/journeys/${journeyId}`, { dispatcher: agent, headers: { authorization: `Bearer ${project.apiKey}` } });
      const journey = ((await response.json()) as { data: { eventCount: number } }).data;
      expect(journey.eventCount).toBe(shared.length + a.length + b.length);
      const stored = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND journey_id = $2', [project.projectId, journeyId]);
      expect(stored.rows[0]!.n).toBe(journey.eventCount);
    }
  });

  it('two batches creating the same new journeys in opposite orders do not deadlock', { timeout: 60_000 }, async () => {
    const rand = random(11);
    const [x, y] = ['jrn_race_x', 'jrn_race_y'];
    const eventsOf = (journeyId: string, tag: string) =>
      journeyEvents(`${journeyId}${tag}`, 12, rand).slice(0, 3).map((event) => ({ ...event, journeyId }));
    const first = [...eventsOf(x, 'a'), ...eventsOf(y, 'a')];
    const second = [...eventsOf(y, 'b'), ...eventsOf(x, 'b')];
    const answers = await Promise.all([postBatch(first), postBatch(second)]);
    for (const { status, results } of answers) {
      expect(status).toBe(202);
      expect(results.every((r) => r.status === 'accepted' && r.duplicate === false)).toBe(true);
    }
    // Each batch is stored by one transaction: a deadlock would have sent one of them to the
    // event-by-event fallback (one transaction per event) after deadlock_timeout.
    for (const batch of [first, second]) {
      const { rows } = await db.pool.query<{ n: number }>('SELECT count(DISTINCT txid)::int AS n FROM apply_log WHERE event_id = ANY($1::text[])', [
        batch.map((event) => event.id),
      ]);
      expect(rows[0]!.n).toBe(1);
    }
  });
});
