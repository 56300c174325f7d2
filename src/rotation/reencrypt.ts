// rotate:reencrypt as a job (interface-spec 5): under the rotation lock, move stored data from
// the previous key to the current one, 500 journeys (or destinations) per transaction. The
// lock is checked before every batch; when it is gone the job stops at once, and what earlier
// batches moved stays moved (each batch committed on its own). Event content hashes are never
// touched (event-protocol 7). The job returns a result object; the caller prints or logs it.

import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { reencryptDestinationBatch, START_DESTINATION_CURSOR, type DestinationCursor } from './destination-batch.ts';
import { reencryptJourneyBatch, START_CURSOR, type Cursor } from './journey-batch.ts';
import type { MovableKind } from './key-usage.ts';
import { ROTATION_LOCK_KEY, trySessionLock } from '../db/advisory-lock.ts';

/** Journeys (or destinations) per transaction: the erasure and retention batch size (section 8). */
export const ROTATION_BATCH_SIZE = 500;
/** A batch that deadlocks with ingestion is rolled back by PostgreSQL; it is simply tried again. */
const BATCH_ATTEMPTS = 3;
const RETRYABLE = new Set(['40P01', '40001']);

export type ReencryptOutcome = 'completed' | 'locked' | 'lock_lost' | 'no_previous_key';

export interface ReencryptResult {
  outcome: ReencryptOutcome;
  batches: number;
  journeys: number;
  destinations: number;
  moved: Record<MovableKind, number>;
  /** Met under the previous key but not readable under it (or matched to no value): left in place. */
  unmovable: Record<MovableKind, number>;
}

export interface BatchProgress {
  batch: number;
  phase: 'journeys' | 'destinations';
  rows: number;
}

export interface ReencryptOptions {
  batchSize?: number;
  /** Called after each committed batch (progress lines; tests use it to break the lock). */
  onBatch?: (progress: BatchProgress) => void | Promise<void>;
}

const counts = (): Record<MovableKind, number> => ({ entityIds: 0, aliasValues: 0, searchTokens: 0, destinationHeaders: 0 });

async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= BATCH_ATTEMPTS || typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
    }
  }
}

export async function reencryptStoredData(pool: Pool, keyring: Keyring, options: ReencryptOptions = {}): Promise<ReencryptResult> {
  const batchSize = options.batchSize ?? ROTATION_BATCH_SIZE;
  const result: ReencryptResult = { outcome: 'completed', batches: 0, journeys: 0, destinations: 0, moved: counts(), unmovable: counts() };
  if (keyring.previousKeyId === null) return { ...result, outcome: 'no_previous_key' };
  const lock = await trySessionLock(pool, ROTATION_LOCK_KEY);
  if (lock === null) return { ...result, outcome: 'locked' };
  try {
    let journeyCursor: Cursor | null = START_CURSOR;
    while (journeyCursor !== null) {
      if (!(await lock.isHeld())) return { ...result, outcome: 'lock_lost' };
      const cursor: Cursor = journeyCursor;
      const batch = await withRetry(() => reencryptJourneyBatch(pool, keyring, cursor, batchSize));
      journeyCursor = batch.next;
      if (batch.journeys === 0) break;
      result.batches++;
      result.journeys += batch.journeys;
      for (const kind of ['entityIds', 'aliasValues', 'searchTokens'] as const) {
        result.moved[kind] += batch.moved[kind];
        result.unmovable[kind] += batch.unmovable[kind];
      }
      await options.onBatch?.({ batch: result.batches, phase: 'journeys', rows: batch.journeys });
    }
    let destinationCursor: DestinationCursor | null = START_DESTINATION_CURSOR;
    while (destinationCursor !== null) {
      if (!(await lock.isHeld())) return { ...result, outcome: 'lock_lost' };
      const cursor: DestinationCursor = destinationCursor;
      const batch = await withRetry(() => reencryptDestinationBatch(pool, keyring, cursor, batchSize));
      destinationCursor = batch.next;
      if (batch.destinations === 0) break;
      result.batches++;
      result.destinations += batch.destinations;
      result.moved.destinationHeaders += batch.moved;
      result.unmovable.destinationHeaders += batch.unmovable;
      await options.onBatch?.({ batch: result.batches, phase: 'destinations', rows: batch.destinations });
    }
    return result;
  } finally {
    await lock.release();
  }
}
