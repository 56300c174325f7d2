// What a CLI command runs against. It sits below the CLI so that a capability whose work is a
// command (doctor) can take it without importing the CLI, which imports every capability.
import type { Config } from '../config/config.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';

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
