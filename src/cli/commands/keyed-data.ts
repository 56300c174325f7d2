import {
  KEY_MISMATCH_MESSAGE,
  KEY_SUPERSEDED_MESSAGE,
  recordKeySuccession,
  storedDataUnderOtherKeysOnly,
  supersedingKeyId,
} from '../../rotation/key-mismatch.ts';
import { EXIT_FAILED, type CliContext, type CliServices } from '../context.ts';

/**
 * ctx.withServices for a command that reads or writes keyed data (or deletes by range): a run
 * with a previous key first records that its current key supersedes it; then the command
 * refuses with exit 1, naming ENCRYPTION_KEY, when its key was rotated away or when stored data
 * exists and none of what a rotation moves is under a configured key. So a wrong or outgoing key
 * can never yield "deleted 0 journeys", an API key the server refuses, or data moved back.
 */
export function withKeyedData(ctx: CliContext, fn: (services: CliServices) => Promise<number>): Promise<number> {
  return ctx.withServices(async (services) => {
    await recordKeySuccession(services.pool, services.keyring);
    if ((await supersedingKeyId(services.pool, services.keyring)) !== null) {
      ctx.io.err(`jtrace: ${KEY_SUPERSEDED_MESSAGE}`);
      return EXIT_FAILED;
    }
    if (await storedDataUnderOtherKeysOnly(services.pool, services.keyring)) {
      ctx.io.err(`jtrace: ${KEY_MISMATCH_MESSAGE}`);
      return EXIT_FAILED;
    }
    return fn(services);
  });
}
