import type { Keyring } from '../../crypto/keyring.ts';
import type { Queryable } from '../../db/pool.ts';
import {
  apiKeysNotUnderCurrentKey,
  countContentHashes,
  countKeyUsage,
  KIND_LABELS,
  MOVABLE_KINDS,
  notUnderCurrentKey,
} from '../../rotation/key-usage.ts';
import { reencryptStoredData, type ReencryptResult } from '../../rotation/reencrypt.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK, type CliIo } from '../context.ts';
import { withKeyedData } from './keyed-data.ts';

function summary(result: ReencryptResult): string {
  const moved = MOVABLE_KINDS.map((kind) => `${result.moved[kind]} ${KIND_LABELS[kind]}`).join(', ');
  return `moved ${moved} (${result.journeys} journeys, ${result.destinations} destinations, ${result.batches} batches)`;
}

/** Explains a run that did not finish; null when it did. */
function stopReason(result: ReencryptResult): string | null {
  switch (result.outcome) {
    case 'locked':
      return 'another rotate:reencrypt holds the rotation lock; wait for it to finish, then run this again';
    case 'lock_lost':
      return `the rotation lock was lost after ${result.batches} batches (its database connection ended); what was moved stays moved; run jtrace rotate:reencrypt again`;
    default:
      return null;
  }
}

export const rotateReencrypt: Command = {
  name: 'rotate:reencrypt',
  usage: 'rotate:reencrypt',
  summary: 'move entity ids, alias values, search tokens and destination headers from ENCRYPTION_KEY_PREVIOUS to ENCRYPTION_KEY',
  spec: { positionals: [] },
  async run(ctx) {
    return withKeyedData(ctx, async ({ pool, keyring }) => {
      const result = await reencryptStoredData(pool, keyring, {
        onBatch: (progress) => ctx.io.out(`batch ${progress.batch}: ${progress.rows} ${progress.phase}`),
      });
      const stopped = stopReason(result);
      if (stopped !== null) {
        if (result.batches > 0) ctx.io.out(summary(result));
        ctx.io.err(stopped);
        return EXIT_FAILED;
      }
      if (result.outcome === 'no_previous_key') {
        ctx.io.out('ENCRYPTION_KEY_PREVIOUS is not set: there is no previous key to move data from');
      } else {
        ctx.io.out(summary(result));
      }
      // Whatever was met or not, the exit status says whether everything movable is now current.
      const usage = await countKeyUsage(pool, keyring);
      const left = notUnderCurrentKey(usage);
      if (left > 0) {
        ctx.io.err(`${left} values are still not under the current key (damaged, or under a key that is not configured); see jtrace rotate:status`);
        return EXIT_FAILED;
      }
      if (usage.apiKeys.previous > 0) {
        ctx.io.out(`${usage.apiKeys.previous} API keys are still under the previous key: they move when they next authenticate (jtrace rotate:status lists them)`);
      }
      ctx.io.out('everything rotate:reencrypt moves is under the current key');
      return EXIT_OK;
    });
  },
};

async function printStatus(io: CliIo, db: Queryable, keyring: Keyring): Promise<number> {
  io.out(`current key ${keyring.currentKeyId}; previous key ${keyring.previousKeyId ?? 'not configured'}`);
  const usage = await countKeyUsage(db, keyring);
  for (const kind of MOVABLE_KINDS) {
    const counts = usage[kind];
    io.out(`${KIND_LABELS[kind]}: ${counts.previous} under the previous key, ${counts.unreadable} unreadable under every configured key, ${counts.current} under the current key`);
  }
  for (const key of await apiKeysNotUnderCurrentKey(db, keyring)) {
    const where = `${key.projectSlug}/${key.environmentName}`;
    io.out(
      key.state === 'previous'
        ? `warning: API key ${key.prefix} (${where}) is still under the previous key; it moves when it next authenticates and answers 401 once ENCRYPTION_KEY_PREVIOUS is removed`
        : `warning: API key ${key.prefix} (${where}) is under a key that is not configured and answers 401; revoke it with jtrace key:revoke ${key.prefix}`,
    );
  }
  const hashes = await countContentHashes(db, keyring);
  if (hashes.previous + hashes.unreadable > 0) {
    io.out(
      `event content hashes: ${hashes.previous} under the previous key, ${hashes.unreadable} under keys no longer configured (never moved; a resend of such an event is 409 event_id_conflict once its key is gone)`,
    );
  }
  const left = notUnderCurrentKey(usage);
  if (left > 0) {
    io.out(`not done: ${left} values are not under the current key; run jtrace rotate:reencrypt (unreadable values need the key that wrote them as ENCRYPTION_KEY_PREVIOUS)`);
    return EXIT_FAILED;
  }
  io.out('done: every entity id, alias value, search token and destination header is under the current key');
  return EXIT_OK;
}

export const rotateStatus: Command = {
  name: 'rotate:status',
  usage: 'rotate:status',
  summary: 'show what is still under the previous key; exit 0 only when everything rotate:reencrypt moves is under the current key',
  spec: { positionals: [] },
  async run(ctx) {
    return withKeyedData(ctx, ({ pool, keyring }) => printStatus(ctx.io, pool, keyring));
  },
};
