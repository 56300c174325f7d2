// Sending claimed notifications, many at once. Each send is bounded by its own deadline and by
// how many sends may be in flight for its receiver, its project and in all, so a receiver that
// never answers holds only its own project's slots, never another project's notification.

import type { Logger } from 'pino';
import { decryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { sendReplay, type SendOptions } from '../replay/sender.ts';
import { isHostAllowed } from '../replay/url-policy.ts';
import { ALERT_BACKOFF_BASE_MS, ALERT_BACKOFF_MAX_MS, ALERT_RETRY_WINDOW_MS, ALERT_SEND_TIMEOUT_MS, ALERT_SENDS_IN_FLIGHT, ALERT_SENDS_PER_PROJECT, ALERT_SENDS_PER_RECEIVER } from './limits.ts';
import { notificationBody, type Notification } from './notification.ts';
import { recordAttempt, type DueNotification, type Outcome } from './outbox-sql.ts';
import { signNotification } from './signing.ts';

export interface DeliveryDeps {
  pool: Pool;
  keyring: Keyring;
  logger: Pick<Logger, 'info' | 'warn'>;
  metrics: Pick<Metrics, 'alertsSent' | 'alertsFailed'>;
  allowedHosts: readonly string[];
  version: string;
  backoffBaseMs?: number;
  send?: SendOptions;
}

export function sendTimeoutMs(deps: Pick<DeliveryDeps, 'send'>): number {
  return deps.send?.timeoutMs ?? ALERT_SEND_TIMEOUT_MS;
}

/** Sends counted per receiver of a project, per project and in all. */
export class SendCounts {
  readonly #receivers = new Map<string, number>();
  readonly #projects = new Map<string, number>();
  #total = 0;

  get total(): number {
    return this.#total;
  }

  add(due: DueNotification, by: 1 | -1): void {
    const bump = (map: Map<string, number>, key: string) => {
      const next = (map.get(key) ?? 0) + by;
      if (next === 0) map.delete(key);
      else map.set(key, next);
    };
    bump(this.#receivers, receiverKey(due));
    bump(this.#projects, due.project_id);
    this.#total += by;
  }

  /** Whether one more send for this notification fits every limit, counting `also` as well. */
  fits(due: DueNotification, also?: SendCounts): boolean {
    const other = also ?? new SendCounts();
    const sum = (of: (counts: SendCounts) => number | undefined) => (of(this) ?? 0) + (of(other) ?? 0);
    return (
      sum((c) => c.#total) < ALERT_SENDS_IN_FLIGHT &&
      sum((c) => c.#projects.get(due.project_id)) < ALERT_SENDS_PER_PROJECT &&
      sum((c) => c.#receivers.get(receiverKey(due))) < ALERT_SENDS_PER_RECEIVER
    );
  }
}

/** The sends in flight in this instance. */
export class InFlight {
  readonly counts = new SendCounts();
  readonly #sends = new Set<Promise<boolean>>();

  /** Counts a send from now until it settles. */
  track(due: DueNotification, send: () => Promise<boolean>): Promise<boolean> {
    this.counts.add(due, 1);
    const running = send().finally(() => {
      this.counts.add(due, -1);
      this.#sends.delete(running);
    });
    this.#sends.add(running);
    return running;
  }

  /** Waits until every send started so far has settled (each is bounded by its deadline). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#sends]);
  }
}

const receiverKey = (due: DueNotification) => `${due.project_id} ${due.receiver}`;

function backoff(deps: DeliveryDeps, attempts: number): number {
  return Math.min(ALERT_BACKOFF_MAX_MS, (deps.backoffBaseMs ?? ALERT_BACKOFF_BASE_MS) * 2 ** Math.max(0, attempts - 1));
}

/** One attempt under `claim`; true when the receiver answered 2xx. Never throws. */
export async function deliver(deps: DeliveryDeps, due: DueNotification, claim: string, now: () => Date): Promise<boolean> {
  try {
    return await attempt(deps, due, claim, now);
  } catch (error) {
    // The claim lapses and the notification is tried again: nothing is lost.
    deps.logger.warn({ err: { type: error instanceof Error ? error.name : 'error' } }, 'alert delivery failed');
    return false;
  }
}

async function attempt(deps: DeliveryDeps, due: DueNotification, claim: string, now: () => Date): Promise<boolean> {
  const secret = decryptField(deps.keyring, due.secret_encrypted);
  const url = new URL(due.url);
  const started = now();
  const expired = started.getTime() - due.created_at.getTime() >= ALERT_RETRY_WINDOW_MS;
  const record = (outcome: Outcome, statusCode: number | null, error: string | null, retry: boolean) =>
    recordAttempt(deps.pool, due, claim, {
      outcome, statusCode, error, now: now(), retryAt: retry && !expired ? new Date(now().getTime() + backoff(deps, due.attempts + 1)) : null,
    });
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
  // A 2xx status is a delivery, whatever became of the answer's body after it (too large, cut
  // off, slow): the receiver has the notification, and sending it again would repeat it.
  if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
    deps.metrics.alertsSent.inc();
    await record('sent', outcome.status, null, false);
    return true;
  }
  deps.metrics.alertsFailed.inc();
  if (outcome.kind === 'response') await record(expired ? 'gave_up' : 'error_status', outcome.status, null, true);
  else await record(expired ? 'gave_up' : 'failed', outcome.status, outcome.error, true);
  return false;
}
