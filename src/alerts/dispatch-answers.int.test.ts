// What a receiver's answer means, what a notification's count says, and sends that outlive the
// instance that started them: a 2xx is a delivery whatever its body, a pending notification
// reports its window's count as it grows, and a claimed notification is never sent twice at once
// nor lost when its sender dies.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADVISORY_LOCK_KEYS } from '../db/advisory-lock.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { REPLAY_RESPONSE_READ_LIMIT_BYTES } from '../replay/limits.ts';
import type { Dispatcher } from './dispatcher.ts';
import { ALERT_CLAIM_MARGIN_MS } from './limits.ts';
import { createAlertsFixture, createRule, deleteRule, dispatcherOn, loseAPhone, notifications, startReceiver, waitFor, type AlertsFixture, type Receiver } from './test-kit.ts';

let a: AlertsFixture;
let poolB: Pool;
let receiver: Receiver;
let slow: Receiver;
let failuresLeft = 0;
const dispatchers: Dispatcher[] = [];
const big = Buffer.alloc(REPLAY_RESPONSE_READ_LIMIT_BYTES + 65_536, 'x');

beforeAll(async () => {
  a = await createAlertsFixture();
  poolB = createPool({ connectionString: a.fx.db.url, max: 4, statementTimeoutMs: 10_000 });
  receiver = await startReceiver((request, response) => {
    if (request.path === '/declared') response.writeHead(200, { 'content-length': String(big.length) }).end(big);
    else if (request.path === '/chunked') {
      response.writeHead(200);
      for (let at = 0; at < big.length; at += 16_384) response.write(big.subarray(at, at + 16_384));
      response.end();
    } else if (failuresLeft > 0) {
      failuresLeft--;
      response.writeHead(500).end();
    } else response.writeHead(200).end();
  });
  slow = await startReceiver(null);
});
// Every test stops its dispatchers, passed or not: the next one takes the lock.
afterEach(async () => {
  for (const dispatcher of dispatchers.splice(0)) await dispatcher.stop();
});
afterAll(async () => {
  await receiver.close();
  await slow.close();
  await poolB.end();
  await a.close();
});

const deliveryLog = async (ruleId: string) =>
  (await a.fx.db.pool.query<{ line: string }>(`SELECT attempt || ' ' || outcome || ' ' || coalesce(status_code::text, '-') AS line FROM alert_deliveries WHERE rule_id = $1 ORDER BY id`, [ruleId])).rows.map(
    (row) => row.line,
  );

describe('alert delivery answers', () => {
  it('takes a 2xx answer with a body over the read cap as delivered, and sends it once', async () => {
    const declared = await createRule(a, a.fx.projectId, 'declared', `${receiver.origin}/declared`);
    const chunked = await createRule(a, a.fx.projectId, 'chunked', `${receiver.origin}/chunked`);
    const dispatcher = dispatcherOn(a.fx.db.pool, a);
    dispatchers.push(dispatcher);
    await loseAPhone(a, 'own', 'jrn-big');
    expect(await dispatcher.runOnce()).toBe(2);
    for (const rule of [declared, chunked]) expect(await deliveryLog(rule.id)).toEqual(['1 sent 200']);
    // Long past every retry delay, the notification is not sent again.
    for (let round = 0; round < 3; round++) {
      a.setClock(a.now() + 3_600_000);
      await dispatcher.runOnce();
    }
    for (const path of ['/declared', '/chunked']) {
      expect(notifications(receiver, path)[0]).toMatch(/^firing /);
      expect(notifications(receiver, path).filter((line) => line.startsWith('firing'))).toHaveLength(1);
    }
    await dispatcher.stop();
    for (const rule of [declared, chunked]) await deleteRule(a, a.fx.projectId, rule.id);
  });

  it("reports the window's count as it grows while the notification is pending, and says what it counts", async () => {
    receiver.received.length = 0;
    const rule = await createRule(a, a.fx.projectId, 'grows', `${receiver.origin}/grows`);
    const dispatcher = dispatcherOn(a.fx.db.pool, a);
    dispatchers.push(dispatcher);
    const start = Math.floor(a.now() / 60_000) * 60_000 + 60_000;
    a.setClock(start + 1_000);
    failuresLeft = 1;
    await loseAPhone(a, 'own', 'jrn-g1');
    await dispatcher.runOnce();
    // Two more in the same window before the retry.
    a.setClock(start + 5_000);
    await loseAPhone(a, 'own', 'jrn-g2');
    await loseAPhone(a, 'own', 'jrn-g3');
    await dispatcher.runOnce();
    a.setClock(start + 30_000);
    await loseAPhone(a, 'own', 'jrn-g4');
    await dispatcher.runOnce();

    const grows = receiver.received.filter((r) => r.path === '/grows');
    const bodies = grows.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => [b.count, b.journeys.length, b.windowComplete, b.countedAt])).toEqual([
      [1, 1, false, new Date(start + 1_000).toISOString()],
      [3, 3, false, new Date(start + 5_000).toISOString()],
    ]);
    expect(new Set(grows.map((r) => r.headers['x-jtrace-delivery'])).size).toBe(1);
    expect(await deliveryLog(rule.id)).toEqual(['1 error_status 500', '2 sent 200']);
    await dispatcher.stop();
    await deleteRule(a, a.fx.projectId, rule.id);
  });

  it('never sends a notification twice at once when the lock holder loses its lock mid-send, and sends one whose claimer died', async () => {
    const rule = await createRule(a, a.fx.projectId, 'held', `${slow.origin}/held`);
    const first = dispatcherOn(a.fx.db.pool, a, { send: { timeoutMs: 2_000 } });
    const second = dispatcherOn(poolB, a, { send: { timeoutMs: 2_000 } });
    dispatchers.push(first, second);
    a.setClock(Math.floor(a.now() / 60_000) * 60_000 + 60_000 + 1_000);
    await loseAPhone(a, 'own', 'jrn-h1');
    const sending = first.runOnce();
    expect(await waitFor(() => slow.received.length === 1, 10_000)).toBe(true);
    // The first instance's lock session dies while its send hangs: the second takes over.
    await a.fx.db.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted`, [ADVISORY_LOCK_KEYS.alerts]);
    await second.runOnce();
    expect(second.holdsLock()).toBe(true);
    await sending;
    expect(slow.received).toHaveLength(1);
    expect(slow.maxOpen()).toBe(1);
    expect(await deliveryLog(rule.id)).toEqual(['1 failed -']);

    // A claim whose holder died before recording lapses, and the notification is sent again.
    a.setClock(a.now() + 5_000);
    await a.fx.db.pool.query(`UPDATE alert_outbox SET claim = gen_random_uuid(), next_attempt_at = $2 WHERE rule_id = $1`, [
      rule.id,
      new Date(a.now() + 2_000 + ALERT_CLAIM_MARGIN_MS),
    ]);
    await second.runOnce();
    expect(slow.received).toHaveLength(1);
    a.setClock(a.now() + 2_000 + ALERT_CLAIM_MARGIN_MS);
    await second.runOnce();
    expect(slow.received).toHaveLength(2);
    expect(new Set(slow.received.map((r) => r.headers['x-jtrace-delivery'])).size).toBe(1);
    expect(slow.maxOpen()).toBe(1);
    expect(await deliveryLog(rule.id)).toEqual(['1 failed -', '2 failed -']);
  });
});
