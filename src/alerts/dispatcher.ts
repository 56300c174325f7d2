// The alert dispatcher: one instance at a time (advisory lock `alerts`). Each pass evaluates every
// rule that is not muted against the findings first found in its current window and queues a
// notification in the outbox (the unique key keeps it to one per rule and window), then sends what
// is due. A notification stays pending until its receiver answers 2xx, and is retried with a
// doubling delay for up to 24 hours, so a restart or another instance taking over sends what was
// left. With no rule nothing is queued, so nothing is ever sent.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { decryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { ADVISORY_LOCK_KEYS, trySessionLock, type HeldLock } from '../db/advisory-lock.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { sendReplay, type SendOptions } from '../replay/sender.ts';
import { isHostAllowed } from '../replay/url-policy.ts';
import { ALERT_BACKOFF_BASE_MS, ALERT_BACKOFF_MAX_MS, ALERT_PASS_INTERVAL_MS, ALERT_RETRY_WINDOW_MS, ALERT_SEND_BATCH, ALERT_SEND_TIMEOUT_MS, MAX_ALERT_JOURNEYS } from './limits.ts';
import { notificationBody, type Notification } from './notification.ts';
import { enqueue, recordAttempt, selectDue, type DueNotification } from './outbox-sql.ts';
import { countMatches, selectRules, setRuleState, type AlertRuleRecord } from './rules-sql.ts';
import { signNotification } from './signing.ts';

export interface DispatcherDeps {
  pool: Pool;
  keyring: Keyring;
  logger: Pick<Logger, 'info' | 'warn'>;
  metrics: Pick<Metrics, 'alertsSent' | 'alertsFailed'>;
  /** ALERT_ALLOWED_HOSTS as resolved at start; empty sends nothing. */
  allowedHosts: readonly string[];
  version: string;
  now?: () => number;
  intervalMs?: number;
  backoffBaseMs?: number;
  send?: SendOptions;
}

export interface Dispatcher {
  /** One pass now (after a running one); returns notifications sent. */
  runOnce(): Promise<number>;
  holdsLock(): boolean;
  stop(): Promise<void>;
}

export function startAlertDispatcher(deps: DispatcherDeps): Dispatcher {
  let lock: HeldLock | null = null;
  let stopping = false;
  let running: Promise<number> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const now = () => new Date((deps.now ?? Date.now)());

  const pass = async (): Promise<number> => {
    if (stopping) return 0;
    if (lock === null || !(await lock.isHeld())) {
      await lock?.release();
      lock = await trySessionLock(deps.pool, ADVISORY_LOCK_KEYS.alerts);
      if (lock === null) return 0;
    }
    for (const rule of await selectRules(deps.pool, null)) await evaluate(deps, rule, now());
    let sent = 0;
    for (const due of await selectDue(deps.pool, now(), ALERT_SEND_BATCH)) {
      if (stopping || !(await lock.isHeld())) break;
      if (await deliver(deps, due, now)) sent++;
    }
    return sent;
  };
  const runOnce = (): Promise<number> => {
    const next: Promise<number> = (running ?? Promise.resolve(0)).catch(() => 0).then(pass);
    running = next;
    void next.finally(() => {
      if (running === next) running = null;
    }).catch(() => undefined);
    return next;
  };
  const schedule = () => {
    if (stopping) return;
    timer = setTimeout(() => {
      timer = null;
      runOnce()
        .catch((error: unknown) => deps.logger.warn({ err: { type: error instanceof Error ? error.name : 'error' } }, 'alert dispatch failed'))
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
      await running?.catch(() => undefined);
      await lock?.release();
      lock = null;
    },
  };
}

/** Tumbling windows from the epoch: every instance and every pass agree on where one starts. */
export function windowStart(atMs: number, minutes: number): Date {
  const size = minutes * 60_000;
  return new Date(Math.floor(atMs / size) * size);
}

async function evaluate(deps: DispatcherDeps, rule: AlertRuleRecord, at: Date): Promise<void> {
  if (rule.muted_until !== null && rule.muted_until > at) return;
  const size = rule.window_minutes * 60_000;
  const start = windowStart(at.getTime(), rule.window_minutes);
  const end = new Date(start.getTime() + size);
  const current = await countMatches(deps.pool, rule, start, end, MAX_ALERT_JOURNEYS);
  const notify = async (notification: Notification['notification'], count: number, journeys: string[]) =>
    withTransaction(deps.pool, async (client) => {
      const body: Notification = {
        notification,
        rule: {
          id: rule.id, projectId: rule.project_id, name: rule.name, kind: rule.kind, path: rule.path, entityType: rule.entity_type,
          environment: rule.environment, threshold: { count: rule.threshold_count, windowMinutes: rule.window_minutes },
        },
        windowStart: start.toISOString(),
        windowEnd: end.toISOString(),
        count,
        journeys,
      };
      await enqueue(client, { projectId: rule.project_id, id: randomUUID(), ruleId: rule.id, windowStart: start, notification, body, now: at });
      await setRuleState(client, rule, notification === 'firing' ? 'firing' : 'ok');
    });
  if (current.count >= rule.threshold_count) {
    await notify('firing', current.count, current.journeys);
  } else if (rule.state === 'firing') {
    // Resolved once a whole window has passed under the threshold.
    const previous = await countMatches(deps.pool, rule, new Date(start.getTime() - size), start, 0);
    if (previous.count < rule.threshold_count) await notify('resolved', current.count, []);
  }
}

function backoff(deps: DispatcherDeps, attempts: number): number {
  return Math.min(ALERT_BACKOFF_MAX_MS, (deps.backoffBaseMs ?? ALERT_BACKOFF_BASE_MS) * 2 ** Math.max(0, attempts - 1));
}

/** One attempt; true when the receiver answered 2xx. */
async function deliver(deps: DispatcherDeps, due: DueNotification, now: () => Date): Promise<boolean> {
  const secret = decryptField(deps.keyring, due.secret_encrypted);
  const url = new URL(due.url);
  const started = now();
  const expired = started.getTime() - due.created_at.getTime() >= ALERT_RETRY_WINDOW_MS;
  const record = (outcome: Parameters<typeof recordAttempt>[2]['outcome'], statusCode: number | null, error: string | null, retry: boolean) =>
    withTransaction(deps.pool, (client) =>
      recordAttempt(client, due, { outcome, statusCode, error, now: now(), retryAt: retry && !expired ? new Date(now().getTime() + backoff(deps, due.attempts + 1)) : null }),
    );
  // The host list may have changed since the rule was made: checked again before every send.
  if (secret === null || !isHostAllowed(url.hostname, deps.allowedHosts)) {
    deps.metrics.alertsFailed.inc();
    await record('blocked', null, secret === null ? 'secret_key_not_configured' : 'host_not_allowed', false);
    return false;
  }
  const body = notificationBody(due.channel, due.body as Notification, due.id);
  const timestamp = Math.floor(started.getTime() / 1000);
  const outcome = await sendReplay(
    {
      url,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': `jtrace/${deps.version}`,
        'x-jtrace-delivery': due.id,
        'x-jtrace-timestamp': String(timestamp),
        'x-jtrace-signature': signNotification(secret, timestamp, body),
      },
      body,
    },
    { timeoutMs: ALERT_SEND_TIMEOUT_MS, ...deps.send },
  );
  if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) {
    deps.metrics.alertsSent.inc();
    await record('sent', outcome.status, null, false);
    return true;
  }
  deps.metrics.alertsFailed.inc();
  if (outcome.kind === 'response') await record(expired ? 'gave_up' : 'error_status', outcome.status, null, true);
  else await record(expired ? 'gave_up' : 'failed', outcome.status, outcome.error, true);
  return false;
}
