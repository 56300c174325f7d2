// The start-up check of interface-spec 5: the service starts even when stored data is unreadable
// under the configured keys (a removed previous key, a wrong ENCRYPTION_KEY), but says so once
// with counts per table and sets `service_unreadable_values` so an alert can fire. Counting is
// by key id (key-usage.ts): no value is decrypted, and no value ever reaches the log.

import type { Logger } from 'pino';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { countKeyUsage, MOVABLE_KINDS, unreadableByTable, type KeyUsage } from './key-usage.ts';

/** PostgreSQL's code for a missing table: the schema is not migrated yet. */
const UNDEFINED_TABLE = '42P01';

/** Per table, values whose key id is not configured (GROUP BY on key ids; nothing is decrypted). */
export async function countUnreadableValues(db: Queryable, keyring: Keyring): Promise<Record<string, number>> {
  return unreadableByTable(await countKeyUsage(db, keyring));
}

/**
 * Runs the check, sets the gauge and logs. Never throws: a failed check must not stop a start
 * that would otherwise succeed (for example while migrations are still pending in production).
 */
export async function reportUnreadableValues(db: Queryable, keyring: Keyring, metrics: Metrics, logger: Logger): Promise<KeyUsage | null> {
  let usage: KeyUsage;
  try {
    usage = await countKeyUsage(db, keyring);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === UNDEFINED_TABLE) {
      logger.info('unreadable-data check skipped: the schema is not migrated yet');
    } else {
      logger.warn({ err: { type: (error as Error).name, code } }, 'unreadable-data check failed');
    }
    return null;
  }
  const byTable = unreadableByTable(usage);
  for (const [table, count] of Object.entries(byTable)) metrics.unreadableValues.set({ table }, count);
  if (Object.values(byTable).some((count) => count > 0)) {
    logger.warn(
      { unreadableValues: byTable },
      'stored data is under an encryption key that is not configured; set ENCRYPTION_KEY_PREVIOUS to the key that wrote it (jtrace doctor shows more)',
    );
  }
  const underPrevious = MOVABLE_KINDS.reduce((sum, kind) => sum + usage[kind].previous, 0);
  if (underPrevious > 0) {
    logger.info({ valuesUnderPreviousKey: underPrevious }, 'a key rotation is in progress; run jtrace rotate:reencrypt');
  }
  return usage;
}
