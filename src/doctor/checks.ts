// The installation checks of `jtrace doctor` that need no running API: configuration and
// secrets, the database, migrations, and whether the configured keys can read stored data.
// A check returns a result; it never prints and never throws for the condition it checks.
// Details never quote a secret, a connection string or a stored value.

import { ConfigError, loadConfig, MIN_ADMIN_TOKEN_LENGTH } from '../config/config.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { appliedVersions, latestVersion, listMigrations } from '../db/migrate.ts';
import type { Queryable } from '../db/pool.ts';
import { APPLICATION_ROLE_FIX, connectsAsSuperuser } from '../db/role.ts';
import { supersedingKeyId } from '../rotation/key-mismatch.ts';
import { countKeyUsage, KIND_LABELS, MOVABLE_KINDS, unreadableByTable } from '../rotation/key-usage.ts';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  status: CheckStatus;
  check: string;
  detail: string;
  /** What to do about it; printed for failures (and for warnings that have a remedy). */
  fix?: string;
}

/** Oldest PostgreSQL the SQL is written for (decisions: production database). */
const MIN_SERVER_VERSION_NUM = 150_000;

const SECRET_VARIABLE = /^(ADMIN_TOKEN|ENCRYPTION_KEY|ENCRYPTION_KEY_PREVIOUS)(_FILE)?$/;

function secretFix(variable: string): string {
  if (variable.startsWith('ADMIN_TOKEN')) {
    return `set ADMIN_TOKEN (or ADMIN_TOKEN_FILE) to a random secret of at least ${MIN_ADMIN_TOKEN_LENGTH} characters without a repeated pattern, e.g. openssl rand -base64 48`;
  }
  if (variable.startsWith('ENCRYPTION_KEY_PREVIOUS')) return 'set ENCRYPTION_KEY_PREVIOUS to the outgoing key, or remove it';
  return 'set ENCRYPTION_KEY (or ENCRYPTION_KEY_FILE) to 32 random bytes (openssl rand -hex 32) and keep it: stored data needs it; to leave a weak key, set it as ENCRYPTION_KEY_PREVIOUS and run jtrace rotate:reencrypt';
}

/** The secrets as the server would read them (decisions: secrets). */
export function checkSecrets(env: Record<string, string | undefined>): CheckResult {
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (SECRET_VARIABLE.test(error.variable)) {
      return { status: 'fail', check: 'secrets', detail: error.message, fix: secretFix(error.variable) };
    }
    return { status: 'fail', check: 'secrets', detail: `configuration error: ${error.message}`, fix: `correct ${error.variable}` };
  }
  if (config.databaseUrl === null && (config.adminToken === null || config.encryptionKey === null)) {
    const generated = [config.adminToken === null ? 'ADMIN_TOKEN' : null, config.encryptionKey === null ? 'ENCRYPTION_KEY' : null]
      .filter((name) => name !== null)
      .join(' and ');
    return {
      status: 'warn',
      check: 'secrets',
      detail: `embedded mode uses generated ${generated} from .data/secrets.env`,
      fix: 'fine on a workstation; for production set DATABASE_URL, ADMIN_TOKEN and ENCRYPTION_KEY (keep the same ENCRYPTION_KEY)',
    };
  }
  const names = config.encryptionKeyPrevious === null ? 'ADMIN_TOKEN and ENCRYPTION_KEY' : 'ADMIN_TOKEN, ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS';
  return { status: 'ok', check: 'secrets', detail: `${names} are set` };
}

/** The application must not hold superuser rights (docs/operations.md, "The application role"). */
export async function checkRole(db: Queryable): Promise<CheckResult> {
  if (await connectsAsSuperuser(db)) {
    return { status: 'fail', check: 'role', detail: 'DATABASE_URL connects as a superuser', fix: APPLICATION_ROLE_FIX };
  }
  return { status: 'ok', check: 'role', detail: 'the application role is no superuser' };
}

/** The error's code (or class) only: a driver message can quote the host, the user or the database. */
export function describeError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}

export async function checkDatabase(db: Queryable): Promise<CheckResult> {
  try {
    const result = await db.query<{ version: string; num: string }>(
      `SELECT current_setting('server_version') AS version, current_setting('server_version_num') AS num`,
    );
    const row = result.rows[0]!;
    if (Number(row.num) < MIN_SERVER_VERSION_NUM) {
      return { status: 'fail', check: 'database', detail: `PostgreSQL ${row.version} is older than 15`, fix: 'upgrade to PostgreSQL 15 or later' };
    }
    return { status: 'ok', check: 'database', detail: `reachable (PostgreSQL ${row.version})` };
  } catch (error) {
    return {
      status: 'fail',
      check: 'database',
      detail: `unreachable (${describeError(error)})`,
      fix: 'check DATABASE_URL (host, port, user, password, database) and that PostgreSQL is running',
    };
  }
}

export async function checkMigrations(db: Queryable): Promise<CheckResult> {
  const applied = await appliedVersions(db);
  const expected = latestVersion();
  const at = applied.at(-1) ?? 0;
  // Versions may leave gaps (numbers are reserved ahead): count the shipped files not applied.
  const done = new Set(applied);
  const pending = listMigrations().filter((migration) => !done.has(migration.version)).length;
  if (pending > 0) {
    return {
      status: 'fail',
      check: 'migrations',
      detail: `${pending} pending (database at ${at}, this build needs ${expected}); /ready answers 503 migrations_pending`,
      fix: 'run jtrace migrate',
    };
  }
  if (at > expected) {
    return { status: 'warn', check: 'migrations', detail: `the database is at ${at}, newer than this build (${expected})`, fix: 'run the newer build' };
  }
  return { status: 'ok', check: 'migrations', detail: `up to date (${expected})` };
}

/** Stored data under unconfigured keys fails; data or API keys under the previous key warn. */
export async function checkKeys(db: Queryable, keyring: Keyring): Promise<CheckResult> {
  if ((await supersedingKeyId(db, keyring)) !== null) {
    return {
      status: 'fail',
      check: 'keys',
      detail: 'ENCRYPTION_KEY has been replaced by a newer key (a rotation recorded it): erasures, ingestion and keyed commands are refused',
      fix: 'set ENCRYPTION_KEY to the new key and ENCRYPTION_KEY_PREVIOUS to this one (docs/operations.md, "Key rotation")',
    };
  }
  const usage = await countKeyUsage(db, keyring);
  const unreadable = Object.entries(unreadableByTable(usage)).filter(([table, n]) => n > 0 && table !== 'api_keys');
  if (unreadable.length > 0) {
    return {
      status: 'fail',
      check: 'keys',
      detail: `values under a key that is not configured: ${unreadable.map(([table, n]) => `${table} ${n}`).join(', ')}`,
      fix: 'set ENCRYPTION_KEY_PREVIOUS (or ENCRYPTION_KEY) to the key that wrote them; jtrace rotate:status shows the counts',
    };
  }
  const previous = MOVABLE_KINDS.filter((kind) => usage[kind].previous > 0);
  const notes: string[] = previous.map((kind) => `${KIND_LABELS[kind]} ${usage[kind].previous}`);
  if (usage.apiKeys.previous > 0) notes.push(`API keys ${usage.apiKeys.previous}`);
  if (notes.length > 0) {
    return {
      status: 'warn',
      check: 'keys',
      detail: `still under the previous key: ${notes.join(', ')}`,
      fix: 'run jtrace rotate:reencrypt; keep ENCRYPTION_KEY_PREVIOUS until jtrace rotate:status exits 0',
    };
  }
  if (usage.apiKeys.unreadable > 0) {
    return {
      status: 'warn',
      check: 'keys',
      detail: `${usage.apiKeys.unreadable} active API keys are under a key that is not configured and answer 401`,
      fix: 'revoke them (jtrace rotate:status lists their prefixes) and create new ones',
    };
  }
  const removable = keyring.previousKeyId === null ? '' : '; ENCRYPTION_KEY_PREVIOUS may be removed';
  return { status: 'ok', check: 'keys', detail: `every stored value is under the current key${removable}` };
}
