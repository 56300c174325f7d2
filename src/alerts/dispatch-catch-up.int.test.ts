// Windows that pass while no pass looks at them (the dispatcher stopped, or stalled on receivers
// that never answer) are evaluated late, from each rule's stored cursor, and their alerts sent
// once, whichever instance catches up and however many passes run.
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../db/pool.ts';
import type { Dispatcher } from './dispatcher.ts';
import { createAlertsFixture, createRule, deleteRule, dispatcherOn, loseAPhone, notifications, startReceiver, waitFor, type AlertsFixture, type Receiver } from './test-kit.ts';

const MINUTE = 60_000;

let a: AlertsFixture;
let poolB: Pool;
let slow: Receiver;
let good: Receiver;
const dispatchers: Dispatcher[] = [];
let w1: number;

beforeAll(async () => {
  a = await createAlertsFixture();
  poolB = createPool({ connectionString: a.fx.db.url, max: 4, statementTimeoutMs: 10_000 });
  slow = await startReceiver(null);
  good = await startReceiver((_request, response) => response.writeHead(200).end());
  w1 = Math.floor(a.now() / MINUTE) * MINUTE;
});
// Every test stops its dispatchers, passed or not: the next one takes the lock.
afterEach(async () => {
  for (const dispatcher of dispatchers.splice(0)) await dispatcher.stop();
});
afterAll(async () => {
  await slow.close();
  await good.close();
  await poolB.end();
  await a.close();
});

const at = (minutes: number) => new Date(w1 + minutes * MINUTE).toISOString();

describe('alert windows missed', () => {
  it('while the dispatcher was stopped are evaluated on catch-up and sent once', async () => {
    const rule = await createRule(a, a.fx.projectId, 'stopped', `${good.origin}/stopped`);
    const before = dispatcherOn(a.fx.db.pool, a);
    dispatchers.push(before);
    await before.runOnce();
    await before.stop();

    // Found in minutes 0 and 2 while nothing dispatches; the clock then moves on ten minutes.
    a.setClock(w1 + 10_000);
    await loseAPhone(a, 'own', 'jrn-s1');
    a.setClock(w1 + 2 * MINUTE + 10_000);
    await loseAPhone(a, 'own', 'jrn-s2');
    a.setClock(w1 + 10 * MINUTE + 10_000);

    // Two instances on one database, each passing three times.
    const instances = [dispatcherOn(a.fx.db.pool, a), dispatcherOn(poolB, a)];
    dispatchers.push(...instances);
    for (let round = 0; round < 3; round++) for (const instance of instances) await instance.runOnce();

    // As a dispatcher that never stopped would have sent: a quiet window after a burst does not resolve, two do.
    expect(notifications(good, '/stopped')).toEqual([`firing ${at(0)} 1`, `firing ${at(2)} 1`, `resolved ${at(4)} 0`]);
    for (const received of good.received) {
      expect(JSON.parse(received.body)).toMatchObject({ rule: { id: rule.id }, windowComplete: true, countedAt: new Date(a.now()).toISOString() });
    }
    const state = await a.fx.db.pool.query('SELECT state, evaluated_until FROM alert_rules WHERE id = $1', [rule.id]);
    expect(state.rows).toEqual([{ state: 'ok', evaluated_until: new Date(w1 + 9 * MINUTE) }]);
    await deleteRule(a, a.fx.projectId, rule.id);
    for (const instance of instances) await instance.stop();
  });

  it("while stalled on receivers that never answer, and deleting those rules loses no other rule's alert", async () => {
    good.received.length = 0;
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const stuck = [];
    for (let i = 0; i < 20; i++) stuck.push(await createRule(a, a.fx.projectId, `stuck ${i}`, `${slow.origin}/hook/${i}`));
    const other = await createRule(a, a.other.projectId, 'other project', `${good.origin}/other`);
    const dispatcher = dispatcherOn(a.fx.db.pool, a, { send: { timeoutMs: 2_000 }, logger });
    dispatchers.push(dispatcher);

    const w = Math.floor(a.now() / MINUTE) * MINUTE + MINUTE;
    a.setClock(w + 10_000);
    await loseAPhone(a, 'own', 'jrn-t1');
    const first = dispatcher.runOnce().catch(() => -1);
    expect(await waitFor(() => slow.received.length > 0, 10_000)).toBe(true);
    // The other project's finding comes in window w after that pass looked; then the stall outlasts the window.
    await loseAPhone(a, 'other', 'jrn-u1');
    a.setClock(w + 3 * MINUTE + 10_000);
    for (const rule of stuck) await deleteRule(a, a.fx.projectId, rule.id);
    await first;
    for (let round = 0; round < 3; round++) await dispatcher.runOnce();

    const iso = (ms: number) => new Date(ms).toISOString();
    expect(notifications(good, '/other')).toEqual([`firing ${iso(w)} 1`, `resolved ${iso(w + 2 * MINUTE)} 0`]);
    expect(JSON.parse(good.received[0]!.body).rule.id).toBe(other.id);
    // The sends of the deleted rules ended quietly: nothing recorded, nothing failed.
    expect(warnings).toEqual([]);
    expect((await a.fx.db.pool.query('SELECT count(*)::int AS n FROM alert_outbox WHERE project_id = $1', [a.fx.projectId])).rows[0].n).toBe(0);
  });
});
