// Sign-in with e-mail and password (docs/roles.md, "Signing in"). Order: both locks (address,
// account) before any password work; then one argon2 verification whether or not the account
// exists, so an unknown e-mail costs what a wrong password costs; a refusal counts against both.
import { writeAccountAudit } from '../audit/audit-log.ts';
import { hashApiKey } from '../crypto/api-keys.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError, errors } from '../http/errors.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { checkPassword } from './passwords.ts';
import { ACCOUNT_RULE, ADDRESS_RULE, clearAccount, lockedFor, recordRefusal } from './sign-in-throttle.ts';
import { findUserByEmail, passwordHashOf, recordSignIn, type UserRow } from './users-sql.ts';

export interface SignInDeps {
  pool: Queryable;
  keyring: Keyring;
  now: () => number;
  metrics: Pick<Metrics, 'passwordVerifications' | 'passwordSignInsThrottled'>;
}

/** A keyed hash of the lower-cased e-mail: names an account in the throttle and the trail without the address. */
export function emailKey(keyring: Keyring, email: string): string {
  return hashApiKey(keyring, `account:${email.trim().toLowerCase()}`).hash;
}

function tooManyAttempts(seconds: number): AppError {
  return new AppError('too_many_attempts', 'Too many refused sign-ins; wait and retry.', undefined, { 'retry-after': String(seconds) });
}

/** The address lock alone, before the body is read (the account is in the body). */
export async function refuseLockedAddress(db: Queryable, address: string, nowMs: number): Promise<void> {
  const wait = await lockedFor(db, 'address', address, nowMs);
  if (wait > 0) throw tooManyAttempts(wait);
}

/** The signed-in person, or 401 unauthorized / 429 too_many_attempts. `address` is the throttle key. */
export async function signInWithPassword(
  deps: SignInDeps,
  input: { email: string; password: string; address: string; clientAddress: string },
): Promise<UserRow> {
  const account = emailKey(deps.keyring, input.email);
  const now = deps.now();
  const wait = Math.max(
    await lockedFor(deps.pool, 'address', input.address, now),
    await lockedFor(deps.pool, 'account', account, now),
  );
  if (wait > 0) throw tooManyAttempts(wait);
  const user = input.email.length <= 254 ? await findUserByEmail(deps.pool, input.email.trim()) : null;
  const stored = user !== null && user.state === 'active' ? await passwordHashOf(deps.pool, user.id) : null;
  const accepted = (await checkPassword(stored, input.password)) && user !== null;
  deps.metrics.passwordVerifications.inc({ outcome: accepted ? 'accepted' : 'refused' });
  if (!accepted) {
    await recordRefusal(deps.pool, 'address', input.address, ADDRESS_RULE, now);
    await recordRefusal(deps.pool, 'account', account, ACCOUNT_RULE, now);
    await writeAccountAudit(deps.pool, 'session.sign_in_refused', null, { emailHash: account }, { kind: 'none', clientAddress: input.clientAddress });
    throw errors.unauthorized();
  }
  await clearAccount(deps.pool, account);
  await recordSignIn(deps.pool, user.id, new Date(now));
  return user;
}
