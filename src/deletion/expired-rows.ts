// The retention sweep's last phase: rows that nobody deletes because they only ever expire
// (docs/retention-and-deletion.md, "Expired rows"). Each kind goes in batches of their own
// transactions, under the sweep's lock, on the ages of limits.ts measured from the sweep's clock.

import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import { liftStatementTimeout } from './deletion-sql.ts';
import {
  deleteEndedSessionsBatch,
  deleteFinishedNotificationsBatch,
  deleteSpentLinksBatch,
  deleteSpentThrottleBatch,
} from './expired-rows-sql.ts';
import { ENDED_SESSION_KEEP_DAYS, FINISHED_ALERT_KEEP_DAYS, SPENT_LINK_KEEP_DAYS, SPENT_THROTTLE_AGE_MS } from './limits.ts';

const DAY_MS = 86_400_000;

/** SESSION_IDLE_MINUTES and SESSION_MAX_HOURS: when a person's session ends. */
export interface SessionLimits {
  idleMinutes: number;
  maxHours: number;
}

export interface ExpiredRowsDeleted {
  signInThrottle: number;
  sessions: number;
  passwordLinks: number;
  alertNotifications: number;
  /** Attempts of the delivery log, gone with their notifications. */
  alertDeliveries: number;
}

export function noExpiredRowsDeleted(): ExpiredRowsDeleted {
  return { signInThrottle: 0, sessions: 0, passwordLinks: 0, alertNotifications: 0, alertDeliveries: 0 };
}

export function anyExpiredRowsDeleted(deleted: ExpiredRowsDeleted): boolean {
  return Object.values(deleted).some((count) => count > 0);
}

export interface ExpiredRowsSweep {
  pool: Pool;
  nowMs: number;
  limit: number;
  /** Without them sessions are left alone: their end depends on the server's settings. */
  sessionLimits?: SessionLimits;
  /** Before every batch: false stops the phase; throws when the sweep's lock was lost. */
  proceed: () => Promise<boolean>;
}

/** One batch of one kind: adds what went to `deleted` and answers how many rows the batch examined. */
type Batch = (db: Queryable, deleted: ExpiredRowsDeleted) => Promise<number>;

function batches(sweep: ExpiredRowsSweep): Batch[] {
  const now = new Date(sweep.nowMs);
  const { limit, sessionLimits } = sweep;
  const list: Batch[] = [
    async (db, deleted) => {
      const count = await deleteSpentThrottleBatch(db, new Date(sweep.nowMs - SPENT_THROTTLE_AGE_MS), now, limit);
      deleted.signInThrottle += count;
      return count;
    },
    async (db, deleted) => {
      const count = await deleteSpentLinksBatch(db, new Date(sweep.nowMs - SPENT_LINK_KEEP_DAYS * DAY_MS), limit);
      deleted.passwordLinks += count;
      return count;
    },
    async (db, deleted) => {
      const gone = await deleteFinishedNotificationsBatch(db, new Date(sweep.nowMs - FINISHED_ALERT_KEEP_DAYS * DAY_MS), limit);
      deleted.alertNotifications += gone.notifications;
      deleted.alertDeliveries += gone.deliveries;
      return gone.notifications;
    },
  ];
  if (sessionLimits !== undefined) {
    const keepMs = ENDED_SESSION_KEEP_DAYS * DAY_MS;
    const idleCutoff = new Date(sweep.nowMs - sessionLimits.idleMinutes * 60_000 - keepMs);
    const maxCutoff = new Date(sweep.nowMs - sessionLimits.maxHours * 3_600_000 - keepMs);
    list.push(async (db, deleted) => {
      const count = await deleteEndedSessionsBatch(db, idleCutoff, maxCutoff, limit);
      deleted.sessions += count;
      return count;
    });
  }
  return list;
}

/** Runs every kind to the end; 'stopped_early' when `proceed` said stop. */
export async function sweepExpiredRows(sweep: ExpiredRowsSweep, deleted: ExpiredRowsDeleted): Promise<'completed' | 'stopped_early'> {
  for (const batch of batches(sweep)) {
    for (;;) {
      if (!(await sweep.proceed())) return 'stopped_early';
      const count = await withTransaction(sweep.pool, async (client) => {
        await liftStatementTimeout(client);
        return batch(client, deleted);
      });
      if (count < sweep.limit) break;
    }
  }
  return 'completed';
}
