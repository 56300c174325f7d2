import type { CliContext } from '../../src/cli/context.ts';
import { runCli } from '../../src/cli/run.ts';
import type { Config } from '../../src/config/config.ts';
import type { Keyring } from '../../src/crypto/keyring.ts';
import type { Pool } from '../../src/db/pool.ts';
import { testConfig } from './app.ts';

export interface CliRun {
  code: number;
  out: string[];
  err: string[];
}

/** Runs one CLI command in-process against the test database, capturing its output. */
export async function runTestCli(
  argv: string[],
  services: { pool: Pool; keyring: Keyring; config?: Partial<Config> },
  env: Record<string, string | undefined> = {},
  stdin?: string,
): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CliContext = {
    env,
    io: { out: (line) => out.push(line), err: (line) => err.push(line), ...(stdin !== undefined ? { readStdin: async () => stdin } : {}) },
    withServices: (fn) => fn({ pool: services.pool, keyring: services.keyring, config: testConfig(services.config) }),
  };
  const code = await runCli(argv, ctx);
  return { code, out, err };
}
