// Loose search tokens for aliases stored before loose matching existed, or under a key a
// rotation has since replaced (migration 0031). A worker runs it in bounded batches of journeys;
// each batch commits its tokens and the position together, so a process stopped at any point
// resumes after the last committed batch, and a batch run twice writes the same rows.

import type { Logger } from 'pino';
import { decryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { aliasLooseTokensForWrite } from '../crypto/loose-tokens.ts';
import { ADVISORY_LOCK_KEYS, trySessionLock } from '../db/advisory-lock.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { aliasesOf, lockState, nextJourneys, replaceLooseTokens, saveState, type LooseTokenRow } from './backfill-sql.ts';

/** Journeys per transaction: a batch reads their aliases at once, so it stays small. */
export const LOOSE_BACKFILL_BATCH_JOURNEYS = 200;
/** A finished backfill looks again this often for a new current key. */
export const LOOSE_BACKFILL_INTERVAL_MS = 15 * 60_000;

export interface BackfillDeps {
  pool: Pool;
  keyring: Keyring;
  batchJourneys?: number;
}

export interface BackfillResult {
  outcome: 'completed' | 'stopped_early' | 'locked';
  batches: number;
  journeys: number;
}

/** One batch in one transaction; true when no journey is left. */
async function runBatch(deps: BackfillDeps, size: number): Promise<{ done: boolean; journeys: number }> {
  return withTransaction(deps.pool, async (client) => {
    const state = await lockState(client, deps.keyring.currentKeyId);
    if (state.completed) return { done: true, journeys: 0 };
    const journeys = await nextJourneys(client, state.after, size);
    const rows: LooseTokenRow[] = [];
    for (const alias of await aliasesOf(client, journeys)) {
      // An alias under a key this process lacks cannot be read: it keeps what it has.
      const value = decryptField(deps.keyring, alias.valueEncrypted);
      if (value === null || value.trim() === '') continue;
      for (const token of aliasLooseTokensForWrite(deps.keyring, alias.type, value)) {
        rows.push({ projectId: alias.projectId, journeyId: alias.journeyId, token: token.token, kind: token.kind });
      }
    }
    await replaceLooseTokens(client, journeys, rows, deps.keyring.currentKeyId);
    const done = journeys.length < size;
    await saveState(client, {
      keyId: state.keyId,
      after: journeys.at(-1) ?? state.after,
      journeysDone: state.journeysDone + journeys.length,
      completed: done,
    });
    return { done, journeys: journeys.length };
  });
}

/** Runs batches until every journey is done or shouldStop answers true between two batches. */
export async function runLooseTokenBackfill(deps: BackfillDeps, shouldStop: () => boolean = () => false): Promise<BackfillResult> {
  const lock = await trySessionLock(deps.pool, ADVISORY_LOCK_KEYS.looseBackfill);
  if (lock === null) return { outcome: 'locked', batches: 0, journeys: 0 };
  const result: BackfillResult = { outcome: 'completed', batches: 0, journeys: 0 };
  try {
    for (;;) {
      if (shouldStop() || !(await lock.isHeld())) return { ...result, outcome: 'stopped_early' };
      const batch = await runBatch(deps, deps.batchJourneys ?? LOOSE_BACKFILL_BATCH_JOURNEYS);
      result.batches += 1;
      result.journeys += batch.journeys;
      if (batch.done) return result;
    }
  } finally {
    await lock.release();
  }
}

export interface LooseTokenBackfiller {
  stop(): Promise<void>;
}

/** The worker's schedule: at start, then every interval; a failure is logged by class and retried then. */
export function startLooseTokenBackfill(deps: BackfillDeps & { logger: Logger; intervalMs?: number }): LooseTokenBackfiller {
  let stopping = false;
  let running: Promise<unknown> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const run = async () => {
    try {
      const result = await runLooseTokenBackfill(deps, () => stopping);
      if (result.journeys > 0) deps.logger.info(result, 'loose search tokens backfilled');
    } catch (error) {
      deps.logger.warn({ err: { type: error instanceof Error ? error.name : 'error' } }, 'loose search token backfill failed; it resumes at its next run');
    }
  };
  const schedule = (delayMs: number) => {
    if (stopping) return;
    timer = setTimeout(() => {
      timer = null;
      running = run().finally(() => {
        running = null;
        schedule(deps.intervalMs ?? LOOSE_BACKFILL_INTERVAL_MS);
      });
    }, delayMs);
    timer.unref();
  };
  schedule(1_000);
  return {
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
