import { loadConfig, type Config } from '../config/config.ts';
import { createKeyring, type Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { openDatabase } from '../runtime/database.ts';
import { resolveSecrets } from '../runtime/secrets.ts';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** All of standard input (user:create --password-stdin); absent where there is none. */
  readStdin?(): Promise<string>;
}

export interface CliServices {
  config: Config;
  pool: Pool;
  keyring: Keyring;
}

export interface CliContext {
  env: Record<string, string | undefined>;
  io: CliIo;
  /** Opens the database (reusing a running embedded server) for the command's duration. */
  withServices<T>(fn: (services: CliServices) => Promise<T>): Promise<T>;
  /** Resolves when the person at an interactive terminal interrupts (Ctrl-C); absent elsewhere. */
  untilInterrupted?(): Promise<void>;
}

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
