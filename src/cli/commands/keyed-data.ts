import { KEY_MISMATCH_MESSAGE, storedDataUnderOtherKeysOnly } from '../../rotation/key-mismatch.ts';
import { EXIT_FAILED, type CliContext, type CliServices } from '../context.ts';

/**
 * ctx.withServices for a command that reads or writes keyed data: it refuses with exit 1,
 * naming ENCRYPTION_KEY, when stored data exists and none of it is under a configured key, so a
 * wrong key can never yield "deleted 0 journeys" or an API key the server refuses.
 */
export function withKeyedData(ctx: CliContext, fn: (services: CliServices) => Promise<number>): Promise<number> {
  return ctx.withServices(async (services) => {
    if (await storedDataUnderOtherKeysOnly(services.pool, services.keyring)) {
      ctx.io.err(`jtrace: ${KEY_MISMATCH_MESSAGE}`);
      return EXIT_FAILED;
    }
    return fn(services);
  });
}
