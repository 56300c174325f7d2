import type { CliContext, CliIo } from '../cli-context/context.ts';
import { loadConfig } from '../config/config.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { openDatabase } from '../runtime/database.ts';
import { resolveSecrets } from '../runtime/secrets.ts';

// The commands take the context's types from here with the exit codes.
export type { CliContext, CliIo, CliServices } from '../cli-context/context.ts';

/** Command outcomes map to exit codes: 0 done, 1 not fully done, 2 usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** dataDir overrides JTRACE_DATA_DIR (tests). */
export function createCliContext(env: Record<string, string | undefined>, io: CliIo, dataDirOverride?: string): CliContext {
  return {
    env,
    io,
    async withServices(fn) {
      const config = loadConfig(env, { requireAdminToken: false });
      const dataDir = dataDirOverride ?? config.dataDir;
      const secrets = resolveSecrets({ ...config, adminToken: config.adminToken ?? (config.databaseUrl ? 'unused-by-the-cli-000000000000000' : null) }, dataDir);
      const keyring = createKeyring({ current: secrets.encryptionKey, previous: secrets.encryptionKeyPrevious });
      const database = await openDatabase(config, { dataDir, applicationName: 'jtrace-cli', poolMax: 4 });
      try {
        return await fn({ config, pool: database.pool, keyring });
      } finally {
        await database.close();
      }
    },
  };
}
