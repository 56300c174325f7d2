// The alert dispatcher. A pass evaluates every rule from where it last stopped (src/alerts/
// evaluate.ts: windows missed while no pass ran are caught up) and queues a notification in the
// outbox for each window that calls for one (a unique key keeps it to one per rule, window and
// kind), then starts sending what is due without waiting for the sends: they run concurrently,
// each within its own deadline and the limits per receiver and per project (delivery.ts), so the
// next pass, and another project's notification, never waits behind a receiver that does not
// answer. A notification stays pending until its receiver answers 2xx and is retried with a
// doubling delay for up to 24 hours. With no rule nothing is queued, so nothing is ever sent.
//
// One instance at a time evaluates and starts sends (advisory lock `alerts`). The lock is not
// what keeps a notification from being sent twice at once: each send first claims its row in
// PostgreSQL for longer than its deadline, so sends that outlive a lost lock, or a pass that runs
// while another instance's sends are in flight, cannot overlap; a claim whose holder died lapses,
// and the notification is sent again rather than lost.

import { randomUUID } from 'node:crypto';
import { ADVISORY_LOCK_KEYS, trySessionLock, type HeldLock } from '../db/advisory-lock.ts';
import { deliver, InFlight, SendCounts, sendTimeoutMs, type DeliveryDeps } from './delivery.ts';
import { evaluateRule } from './evaluate.ts';
import { ALERT_CLAIM_MARGIN_MS, ALERT_PASS_INTERVAL_MS, ALERT_SENDS_IN_FLIGHT, ALERT_SENDS_PER_RECEIVER } from './limits.ts';
import { claimDue, selectDue, type DueNotification } from './outbox-sql.ts';
import { selectRules } from './rules-sql.ts';

export { windowStart } from './windows.ts';

export interface DispatcherDeps extends DeliveryDeps {
  /** ALERT_ALLOWED_HOSTS as resolved at start; empty sends nothing. */
  allowedHosts: readonly string[];
  now?: () => number;
  intervalMs?: number;
}

export interface Dispatcher {
  /** One pass now (after a running one's evaluation); resolves when the sends it started have settled, with how many were delivered. */
  runOnce(): Promise<number>;
  holdsLock(): boolean;
  /** Stops passes and waits for the sends in flight (each within its deadline). */
  stop(): Promise<void>;
}

export function startAlertDispatcher(deps: DispatcherDeps): Dispatcher {
  let lock: HeldLock | null = null;
  let stopping = false;
  let evaluating: Promise<Array<Promise<boolean>>> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const inFlight = new InFlight();
  const now = () => new Date((deps.now ?? Date.now)());

  /** Evaluates, claims and starts sends; returns the sends it started. */
  const pass = async (): Promise<Array<Promise<boolean>>> => {
    if (stopping) return [];
    if (lock === null || !(await lock.isHeld())) {
      await lock?.release();
      lock = await trySessionLock(deps.pool, ADVISORY_LOCK_KEYS.alerts);
      if (lock === null) return [];
    }
    for (const rule of await selectRules(deps.pool, null)) {
      if (stopping) return [];
      // One rule that fails to evaluate does not keep the others from theirs.
      await evaluateRule(deps.pool, rule, now()).catch((error: unknown) => warn('alert rule evaluation failed', error));
    }
    if (stopping || !(await lock.isHeld())) return [];
    return startSends();
  };

  const startSends = async (): Promise<Array<Promise<boolean>>> => {
    if (inFlight.counts.total >= ALERT_SENDS_IN_FLIGHT) return [];
    const at = now();
    const chosen: DueNotification[] = [];
    // This pass's choice counts against the limits as the sends in flight do.
    const planned = new SendCounts();
    for (const due of await selectDue(deps.pool, at, ALERT_SENDS_PER_RECEIVER, ALERT_SENDS_IN_FLIGHT)) {
      if (!inFlight.counts.fits(due, planned)) continue;
      planned.add(due, 1);
      chosen.push(due);
    }
    const claim = randomUUID();
    const claimed = await claimDue(deps.pool, chosen, claim, at, new Date(at.getTime() + sendTimeoutMs(deps) + ALERT_CLAIM_MARGIN_MS));
    return chosen.filter((due) => claimed.has(due.id)).map((due) => inFlight.track(due, () => deliver(deps, due, claim, now)));
  };

  const warn = (message: string, error: unknown) => deps.logger.warn({ err: { type: error instanceof Error ? error.name : 'error' } }, message);

  /** Passes run one after another, but only their evaluation and claiming: never waiting for sends. */
  const chainPass = (): Promise<Array<Promise<boolean>>> => {
    const next = (evaluating ?? Promise.resolve([])).catch(() => []).then(pass);
    evaluating = next;
    void next
      .finally(() => {
        if (evaluating === next) evaluating = null;
      })
      .catch(() => undefined);
    return next;
  };
  const runOnce = async (): Promise<number> => {
    const sends = await chainPass();
    return (await Promise.all(sends)).filter(Boolean).length;
  };
  const schedule = () => {
    if (stopping) return;
    timer = setTimeout(() => {
      timer = null;
      chainPass()
        .catch((error: unknown) => warn('alert dispatch failed', error))
        .finally(schedule);
    }, deps.intervalMs ?? ALERT_PASS_INTERVAL_MS);
    timer.unref();
  };
  schedule();
  return {
    runOnce,
    holdsLock: () => lock !== null,
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await evaluating?.catch(() => undefined);
      await inFlight.settled();
      await lock?.release();
      lock = null;
    },
  };
}
