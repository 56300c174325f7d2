import { updateAudit } from '../audit/audit-log.ts';
import type { Pool } from '../db/pool.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { RETENTION_LOCK_KEY, trySessionLock } from '../db/advisory-lock.ts';
import { runAuditedBatches, type BatchHooks } from './audited-batches.ts';
import { databaseNow, deleteByLastEventBatch } from './deletion-sql.ts';
import { DELETION_BATCH_SIZE, MAX_RANGE_DRY_RUN_JOURNEYS } from './limits.ts';
import { listRangeMatches, type MatchList } from './match-sql.ts';

export type { MatchList };
import type { DateRange } from './range-dates.ts';

export interface RangeScope {
  projectId: string;
  environmentId: string;
}

export type RangeOutcome =
  | { kind: 'locked' }
  | {
      kind: 'ran';
      deletedJourneys: number;
      deletedEvents: number;
      batches: number;
      complete: boolean;
      lockLost: boolean;
      /** Class of the failure that stopped the run, when one did. */
      errorType: string | null;
    };

function bounds(range: DateRange) {
  return { after: range.afterMs === null ? null : formatTimestamp(range.afterMs), before: formatTimestamp(range.beforeMs) };
}

/** delete:range --dry-run: what would go, most recent first; takes no lock and writes nothing. */
export async function previewRange(pool: Pool, scope: RangeScope, range: DateRange): Promise<MatchList> {
  return listRangeMatches(pool, scope, bounds(range), MAX_RANGE_DRY_RUN_JOURNEYS);
}

/**
 * Deletes the environment's journeys whose last event is in [after, before), under the
 * retention lock so that it never runs beside a sweep (or another range deletion). Only
 * journeys created no later than the start are deleted. One `range.deleted` row follows the
 * run; when the lock's session dies between batches the run stops and the row says lockLost.
 */
export async function deleteRange(pool: Pool, scope: RangeScope, range: DateRange, hooks: BatchHooks = {}): Promise<RangeOutcome> {
  const lock = await trySessionLock(pool, RETENTION_LOCK_KEY);
  if (lock === null) return { kind: 'locked' };
  let lockLost = false;
  try {
    const startedAt = await databaseNow(pool);
    const limit = hooks.batchSize ?? DELETION_BATCH_SIZE;
    const { after, before } = bounds(range);
    const details = (totals: { journeys: number }, complete: boolean) => ({
      environmentId: scope.environmentId,
      after,
      before,
      deletedJourneys: totals.journeys,
      complete,
      ...(lockLost ? { lockLost: true } : {}),
    });
    const result = await runAuditedBatches(
      pool,
      {
        projectId: scope.projectId,
        action: 'range.deleted',
        details,
        deleteBatch: async (client) => {
          const { candidates, ...deleted } = await deleteByLastEventBatch(client, scope, { after, before }, startedAt, limit);
          return { deleted, last: candidates < limit };
        },
        mayContinue: async () => {
          lockLost = !(await lock.isHeld());
          return !lockLost;
        },
      },
      hooks,
    );
    // The batches stopped before writing it: the row must still say why the run is incomplete.
    if (lockLost) await updateAudit(pool, scope.projectId, result.auditId, details(result.totals, false));
    return {
      kind: 'ran',
      deletedJourneys: result.totals.journeys,
      deletedEvents: result.totals.events,
      batches: result.batches,
      complete: result.complete,
      lockLost,
      errorType: result.stopped === 'failed' ? (result.error instanceof Error ? result.error.name : 'error') : null,
    };
  } finally {
    await lock.release();
  }
}
