// The batch runner of a worker instance. It leases running batches (several workers may run:
// the lease is taken with SKIP LOCKED, so a batch runs on one of them), starts each batch's
// pending journeys at most `ratePerSecond` a second and `concurrency` at once, and records each
// verdict. A clean stop lets the replays in flight finish, then releases the lease, so a
// restarted worker resumes the pending journeys without sending any twice. A worker that dies
// stops renewing; after the lease lapses another takes over (a replay it had in flight is sent
// again: nothing recorded its answer).

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError } from '../http/errors.ts';
import { createReplay, type ReplayDeps } from '../replay/replays.ts';
import { BATCH_LEASE_MS, BATCH_POLL_MS, BATCHES_PER_WORKER, LEASE_RENEW_MS } from './limits.ts';
import { claimJourney, finishIfDone, leaseBatch, recordOutcome, releaseLease, renewLease, type ClaimedJourney, type LeasedBatch, type Outcome } from './runner-sql.ts';
import { verdictOf } from './verdict.ts';

export interface RunnerDeps extends ReplayDeps {
  logger?: Pick<Logger, 'warn'>;
  pollMs?: number;
}

export interface ProblemReplayRunner {
  /** Looks for a batch now rather than at the next poll. */
  wake(): void;
  /** Stops starting replays, waits for those in flight, releases every lease. */
  stop(): Promise<void>;
}

export function startProblemReplayRunner(deps: RunnerDeps): ProblemReplayRunner {
  const owner = randomUUID();
  const running = new Map<string, Promise<void>>();
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  const wakers = new Set<() => void>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(handle);
        wakers.delete(done);
        resolve();
      };
      const handle = setTimeout(done, Math.max(0, ms));
      wakers.add(done);
    });

  const look = async () => {
    timer = null;
    try {
      while (!stopping && running.size < BATCHES_PER_WORKER) {
        const batch = await leaseBatch(deps.pool, owner, BATCH_LEASE_MS, [...running.keys()]);
        if (batch === null) break;
        const run = runBatch(batch).catch((error: unknown) => warn('a batch replay stopped on an error', error)).finally(() => running.delete(batch.id));
        running.set(batch.id, run);
      }
    } catch (error) {
      warn('looking for a batch replay failed', error);
    }
    if (!stopping) timer = setTimeout(() => void look(), deps.pollMs ?? BATCH_POLL_MS);
  };

  const runBatch = async (batch: LeasedBatch) => {
    const intervalMs = 1000 / Number(batch.rate_per_second);
    let nextStart = batch.last_started_at === null ? 0 : batch.last_started_at.getTime() + intervalMs;
    let held = true;
    const renewal = setInterval(() => {
      renewLease(deps.pool, batch, owner, BATCH_LEASE_MS).then(
        (still) => (held = held && still),
        () => undefined,
      );
    }, LEASE_RENEW_MS);
    const inFlight = new Set<Promise<void>>();
    try {
      while (!stopping && held) {
        if (inFlight.size >= batch.concurrency) {
          await Promise.race(inFlight);
          continue;
        }
        const wait = nextStart - Date.now();
        if (wait > 0) {
          await sleep(wait);
          continue;
        }
        const journey = await claimJourney(deps.pool, batch, owner, BATCH_LEASE_MS);
        if (journey === null) {
          if (inFlight.size === 0) break;
          await Promise.race(inFlight);
          continue;
        }
        nextStart = Date.now() + intervalMs;
        const replay: Promise<void> = replayJourney(batch, journey)
          .then((outcome) => recordOutcome(deps.pool, batch, journey.ordinal, outcome))
          .catch((error: unknown) => warn('a batch replay result could not be stored', error))
          .finally(() => inFlight.delete(replay));
        inFlight.add(replay);
      }
      await Promise.all(inFlight);
      if (!stopping) await finishIfDone(deps.pool, batch);
    } finally {
      clearInterval(renewal);
      await releaseLease(deps.pool, batch, owner).catch(() => undefined);
    }
  };

  const replayJourney = async (batch: LeasedBatch, journey: ClaimedJourney): Promise<Outcome> => {
    const failed = (code: string, message: string, replayId: string | null = null): Outcome => ({ verdict: 'failed', replayId, error: { code, message } });
    if (journey.event_id === null) return failed('no_recorded_event', 'The journey has no recorded event at the step.');
    try {
      // The destination's base URL itself, as a POST: the recorded input is the request body.
      const run = await createReplay(deps, batch.project_id, { eventId: journey.event_id, destinationId: batch.destination_id, method: 'POST', path: '' });
      if (run.status === 'blocked') return failed(run.error ?? 'blocked', 'The replay was blocked; nothing was sent.', run.id);
      if (run.status === 'failed') return failed(run.error ?? 'request_failed', 'The replay request failed.', run.id);
      if (run.responseStatus === null || run.responseStatus < 200 || run.responseStatus > 299) {
        return failed('response_status', `The destination answered ${run.responseStatus ?? 'without a status'}.`, run.id);
      }
      const kind = batch.kind === 'changed' ? 'changed' : 'lost';
      return { verdict: verdictOf(kind, batch.path ?? '', run.requestPayload, run.responsePayload), replayId: run.id, error: null };
    } catch (error) {
      if (error instanceof AppError && error.status < 500) return failed(error.code, error.message);
      warn('a batch replay failed', error);
      return failed('internal_error', 'The replay could not be run.');
    }
  };

  const warn = (message: string, error: unknown) => {
    // The error class and code only: a message could hold a value.
    deps.logger?.warn({ err: { type: (error as Error)?.name, code: (error as { code?: unknown })?.code } }, message);
  };

  void look();
  return {
    wake() {
      if (stopping) return;
      if (timer !== null) {
        clearTimeout(timer);
        void look();
      }
    },
    async stop() {
      stopping = true;
      if (timer !== null) clearTimeout(timer);
      for (const wake of [...wakers]) wake();
      await Promise.all(running.values());
    },
  };
}
