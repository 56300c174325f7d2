import { CLI_ACTOR, updateAudit, writeAudit, type AuditAction, type AuditActor } from '../audit/audit-log.ts';
import { withTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import { liftStatementTimeout, type DeletedCounts } from './deletion-sql.ts';

/**
 * The batch loop shared by erasure and range deletion (interface spec section 6): each batch
 * is one transaction that lifts the statement timeout, deletes, and writes the run's audit
 * row (the first batch) or updates it (every later batch) with the totals so far; the batch
 * that finds nothing more to do sets complete true. A failure after the first commit stops the
 * run and is reported, not thrown: what committed stays deleted and the row says complete false.
 */

export interface BatchHooks {
  /** Tests only: runs inside batch `index`'s transaction before it deletes; a throw fails that batch. */
  beforeBatch?: (index: number, client: PoolClient) => Promise<void>;
  /** Journeys per transaction; tests use small batches. Defaults to DELETION_BATCH_SIZE. */
  batchSize?: number;
}

export interface AuditedBatchPlan {
  projectId: string;
  action: AuditAction;
  /** Who runs it; the CLI when omitted. */
  actor?: AuditActor;
  /** The audit details for the totals so far. */
  details(totals: DeletedCounts, complete: boolean): Record<string, unknown>;
  /** Deletes batch `index`; `last` says nothing remains after it. */
  deleteBatch(client: PoolClient, index: number): Promise<{ deleted: DeletedCounts; last: boolean }>;
  /** Asked before every batch after the first; false stops the run (e.g. the lock was lost). */
  mayContinue?(): Promise<boolean>;
}

export type StopReason = 'failed' | 'refused';

export interface AuditedBatchResult {
  totals: DeletedCounts;
  batches: number;
  complete: boolean;
  /** Why the run stopped part way, when it did. */
  stopped: StopReason | null;
  /** The failure that stopped the run (stopped 'failed'); its text is never shown or logged. */
  error: unknown;
  auditId: number;
}

export async function runAuditedBatches(pool: Pool, plan: AuditedBatchPlan, hooks: BatchHooks = {}): Promise<AuditedBatchResult> {
  let totals: DeletedCounts = { journeys: 0, events: 0 };
  let auditId: number | null = null;
  for (let index = 0; ; index++) {
    if (auditId !== null && plan.mayContinue && !(await plan.mayContinue())) {
      return { totals, batches: index, complete: false, stopped: 'refused', error: null, auditId };
    }
    try {
      const committed = await withTransaction(pool, async (client) => {
        await liftStatementTimeout(client);
        await hooks.beforeBatch?.(index, client);
        const batch = await plan.deleteBatch(client, index);
        const next = { journeys: totals.journeys + batch.deleted.journeys, events: totals.events + batch.deleted.events };
        const details = plan.details(next, batch.last);
        const id = auditId ?? (await writeAudit(client, plan.projectId, plan.action, details, plan.actor ?? CLI_ACTOR));
        if (auditId !== null) await updateAudit(client, plan.projectId, auditId, details);
        return { next, id, last: batch.last };
      });
      // Taken over only after COMMIT, so the totals and the row id never reflect a rolled-back batch.
      totals = committed.next;
      auditId = committed.id;
      if (committed.last) return { totals, batches: index + 1, complete: true, stopped: null, error: null, auditId };
    } catch (error) {
      // Nothing committed yet: no row exists and the caller sees the error itself.
      if (auditId === null) throw error;
      return { totals, batches: index, complete: false, stopped: 'failed', error, auditId };
    }
  }
}
