// `jtrace doctor`: one line per check, `ok|warn|fail|skip <check> <detail>`, and the fix on a
// failure. Exit 1 when any check failed; warnings and skips do not change it. A check that
// depends on one that failed is skipped rather than failed again, so the first fail line is
// the one to act on.

import { ConfigError } from '../config/config.ts';
import type { CliContext } from '../cli-context/context.ts';
import { checkApiKey, checkApiReady, defaultApiUrl } from './api-checks.ts';
import { checkDatabase, checkKeys, checkMigrations, checkRole, checkSecrets, describeError, type CheckResult } from './checks.ts';

/** PostgreSQL's code for a missing table. */
const UNDEFINED_TABLE = '42P01';

export interface DoctorOptions {
  /** --api-url; otherwise http://HOST:PORT of the configuration. */
  apiUrl: URL | null;
  /** --api-key or SERVICE_API_KEY. */
  apiKey: string | null;
  now?: () => number;
}

export function formatCheck(result: CheckResult): string {
  const fix = result.fix !== undefined && result.status !== 'ok' && result.status !== 'skip' ? `; fix: ${result.fix}` : '';
  return `${result.status} ${result.check} ${result.detail}${fix}`;
}

/** The database-side checks; what cannot run after a failure is skipped. */
async function databaseChecks(ctx: CliContext, emit: (result: CheckResult) => void): Promise<{ host: string; port: number } | null> {
  let listen: { host: string; port: number } | null = null;
  let emitted = false;
  try {
    await ctx.withServices(async ({ pool, keyring, config }) => {
      listen = { host: config.host, port: config.port };
      const database = await checkDatabase(pool);
      emit(database);
      emitted = true;
      if (database.status === 'fail') {
        emit({ status: 'skip', check: 'role', detail: 'the database is unreachable' });
        emit({ status: 'skip', check: 'migrations', detail: 'the database is unreachable' });
        emit({ status: 'skip', check: 'keys', detail: 'the database is unreachable' });
        return;
      }
      emit(
        await checkRole(pool).catch((error: unknown): CheckResult => ({
          status: 'fail',
          check: 'role',
          detail: `the role's rights cannot be read (${describeError(error)})`,
          fix: 'check that the database user may read pg_roles',
        })),
      );
      emit(
        await checkMigrations(pool).catch((error: unknown): CheckResult => ({
          status: 'fail',
          check: 'migrations',
          detail: `the applied migrations cannot be read (${describeError(error)})`,
          fix: 'check that the database user may read schema_migrations',
        })),
      );
      try {
        emit(await checkKeys(pool, keyring));
      } catch (error) {
        // A schema that is not migrated has no tables to count yet.
        const missing = (error as { code?: unknown }).code === UNDEFINED_TABLE;
        emit({ status: 'skip', check: 'keys', detail: missing ? 'the schema is not migrated yet' : `stored data cannot be counted (${describeError(error)})` });
      }
    });
  } catch (error) {
    if (emitted) throw error;
    const configuration = error instanceof ConfigError;
    emit(
      configuration
        ? { status: 'skip', check: 'database', detail: 'the configuration is invalid (see secrets)' }
        : {
            status: 'fail',
            check: 'database',
            detail: `cannot be opened (${describeError(error)}${error instanceof Error && !('code' in error) ? `: ${error.message}` : ''})`,
            fix: 'check DATABASE_URL, or for the embedded database the log lines above and the ./.data directory',
          },
    );
    for (const check of ['role', 'migrations', 'keys']) emit({ status: 'skip', check, detail: 'the database could not be opened' });
  }
  return listen;
}

export async function runDoctor(ctx: CliContext, options: DoctorOptions): Promise<number> {
  let failed = false;
  const emit = (result: CheckResult) => {
    if (result.status === 'fail') failed = true;
    ctx.io.out(formatCheck(result));
  };

  emit(checkSecrets(ctx.env));
  const listen = await databaseChecks(ctx, emit);

  // Decision: without --api-url the API is looked for where this configuration makes it
  // listen; only when the configuration cannot say (it is invalid) is the check skipped.
  const base = options.apiUrl ?? (listen === null ? null : defaultApiUrl(listen.host, listen.port));
  let apiReady = false;
  if (base === null) {
    emit({ status: 'skip', check: 'api', detail: 'no --api-url given and the configuration is invalid' });
  } else {
    const api = await checkApiReady(base);
    apiReady = api.status === 'ok';
    emit(api);
  }

  if (options.apiKey === null) {
    emit({ status: 'skip', check: 'api-key', detail: 'no key given (--api-key or SERVICE_API_KEY)' });
  } else if (base === null || !apiReady) {
    emit({ status: 'skip', check: 'api-key', detail: 'the API is not ready' });
  } else {
    emit(await checkApiKey(base, options.apiKey, options.now?.()));
  }
  return failed ? 1 : 0;
}
