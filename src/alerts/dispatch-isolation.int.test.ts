// One project's receiver that never answers must not hold up another project's alert: sends run
// concurrently, each within its own deadline, bounded per receiver and per project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from './dispatcher.ts';
import { ALERT_SENDS_PER_PROJECT, ALERT_SENDS_PER_RECEIVER } from './limits.ts';
import { createAlertsFixture, createRule, dispatcherOn, loseAPhone, notifications, startReceiver, waitFor, type AlertsFixture, type Receiver } from './test-kit.ts';

/** The send deadline of this test's dispatcher, in milliseconds: short, so a stall shows at once. */
const TIMEOUT_MS = 5_000;

let a: AlertsFixture;
let slow: Receiver[];
let good: Receiver;
let dispatcher: Dispatcher | null = null;

beforeAll(async () => {
  a = await createAlertsFixture();
  slow = await Promise.all([0, 1, 2].map(() => startReceiver(null)));
  good = await startReceiver((_request, response) => response.writeHead(200).end());
});
afterAll(async () => {
  await dispatcher?.stop();
  for (const receiver of [...slow, good]) await receiver.close();
  await a.close();
});

describe('alert delivery across projects', () => {
  it("delivers another project's alert within its own send timeout while 40 rules wait on receivers that never answer", async () => {
    for (let i = 0; i < 40; i++) await createRule(a, a.fx.projectId, `slow ${i}`, `${slow[i % 3]!.origin}/hook/${i}`);
    const other = await createRule(a, a.other.projectId, 'other project', `${good.origin}/hook`);
    dispatcher = dispatcherOn(a.fx.db.pool, a, { send: { timeoutMs: TIMEOUT_MS } });

    await loseAPhone(a, 'own', 'jrn-a1');
    const first = dispatcher.runOnce();
    expect(await waitFor(() => slow.some((r) => r.received.length > 0), 10_000)).toBe(true);
    // The other project's finding comes while the first project's sends hang.
    await loseAPhone(a, 'other', 'jrn-b1');
    const started = performance.now();
    const second = dispatcher.runOnce();
    expect(await waitFor(() => good.received.length > 0, TIMEOUT_MS), 'the other project waited behind receivers that never answer').toBe(true);
    expect(good.received[0]!.at - started).toBeLessThan(TIMEOUT_MS);
    expect(JSON.parse(good.received[0]!.body)).toMatchObject({ notification: 'firing', count: 1, rule: { id: other.id, projectId: a.other.projectId } });

    // The stuck project holds at most its own share: 4 per receiver, 8 in all.
    const open = () => slow.reduce((sum, r) => sum + r.open(), 0);
    expect(await waitFor(() => open() === ALERT_SENDS_PER_PROJECT, 5_000)).toBe(true);
    for (const receiver of slow) expect(receiver.maxOpen()).toBeLessThanOrEqual(ALERT_SENDS_PER_RECEIVER);
    expect(await second).toBe(1);
    expect(await first).toBe(0);
    expect(open()).toBe(0);
    // Each attempt that timed out was recorded and stays pending for a retry: nothing is lost.
    const outbox = await a.fx.db.pool.query<{ status: string; attempts: number; n: number }>(
      `SELECT status, attempts, count(*)::int AS n FROM alert_outbox WHERE project_id = $1 GROUP BY status, attempts ORDER BY attempts`,
      [a.fx.projectId],
    );
    expect(outbox.rows).toEqual([
      { status: 'pending', attempts: 0, n: 40 - ALERT_SENDS_PER_PROJECT },
      { status: 'pending', attempts: 1, n: ALERT_SENDS_PER_PROJECT },
    ]);
    expect(notifications(good)).toHaveLength(1);
  });
});
