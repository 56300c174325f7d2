// Sign-in with e-mail and password (docs/roles.md, "Signing in" and "Throttling"). Order: the
// attempt is counted against the address, then the account (or, when the account is locked,
// against this address's one try at it), each count refusing when locked; then a verification
// slot of this process; then one argon2 verification whether or not the account exists, so an
// unknown e-mail costs what a wrong password costs. A refusal keeps the counts; a success or an
// attempt never verified gives them back.
import { writeAccountAudit } from '../audit/audit-log.ts';
import { hashApiKey } from '../crypto/api-keys.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError, errors } from '../http/errors.ts';
import type { Metrics, SIGN_IN_THROTTLE_REASONS } from '../metrics/metrics.ts';
import { checkPassword } from './passwords.ts';
import {
  ACCOUNT_RULE,
  ADDRESS_RULE,
  PAIR_RULE,
  clearCount,
  lockedFor,
  pairKey,
  recordRefusal,
  releaseAttempt,
  reserveAttempt,
  type Counted,
} from './sign-in-throttle.ts';
import { findUserByEmail, passwordHashOf, recordSignIn, type UserRow } from './users-sql.ts';
import { VerificationGate } from './verification-gate.ts';

export { VerificationGate };

export type SignInMetrics = Pick<Metrics, 'passwordVerifications' | 'passwordSignInsThrottled'>;

export interface SignInDeps {
  pool: Queryable;
  keyring: Keyring;
  now: () => number;
  metrics: SignInMetrics;
  /** This process's bound on verifications at once. */
  gate: VerificationGate;
}

/** A keyed hash of the lower-cased e-mail: names an account in the throttle and the trail without the address. */
export function emailKey(keyring: Keyring, email: string): string {
  return hashApiKey(keyring, `account:${email.trim().toLowerCase()}`).hash;
}

type ThrottleReason = (typeof SIGN_IN_THROTTLE_REASONS)[number];

function throttled(metrics: SignInMetrics, reason: ThrottleReason, seconds: number): AppError {
  metrics.passwordSignInsThrottled.inc({ reason });
  const message = reason === 'busy' ? 'Too many sign-ins are being checked at once; retry in a moment.' : 'Too many refused sign-ins; wait and retry.';
  return new AppError('too_many_attempts', message, undefined, { 'retry-after': String(seconds) });
}

/** The address lock alone, before the body is read (the account is in the body). */
export async function refuseLockedAddress(db: Queryable, metrics: SignInMetrics, address: string, nowMs: number): Promise<void> {
  const wait = await lockedFor(db, 'address', address, nowMs);
  if (wait > 0) throw throttled(metrics, 'address', wait);
}

/** The counts one admitted attempt holds: the account's, or during its lock this address's one try. */
interface Admitted {
  address: Counted;
  account: Counted | null;
  pair: Counted | null;
}

async function admit(deps: SignInDeps, keys: { address: string; account: string }, nowMs: number): Promise<Admitted> {
  const address = await reserveAttempt(deps.pool, 'address', keys.address, ADDRESS_RULE, nowMs);
  if (!('counted' in address)) throw throttled(deps.metrics, 'address', address.retryAfterSeconds);
  try {
    const account = await reserveAttempt(deps.pool, 'account', keys.account, ACCOUNT_RULE, nowMs);
    if ('counted' in account) return { address: address.counted, account: account.counted, pair: null };
    // Locked by failures, perhaps from elsewhere: an address with no refusal against it in the
    // last quarter hour gets one try, so guessing from other addresses does not lock the owner out.
    const pair = await reserveAttempt(deps.pool, 'pair', pairKey(keys.account, keys.address), PAIR_RULE, nowMs);
    if ('counted' in pair) return { address: address.counted, account: null, pair: pair.counted };
    throw throttled(deps.metrics, 'account', Math.min(account.retryAfterSeconds, pair.retryAfterSeconds));
  } catch (error) {
    // Not verified: the address's count goes back (a locked account is no guess from this address).
    // Should that fail too, the error answered is the first one.
    await releaseAttempt(deps.pool, address.counted, ADDRESS_RULE).catch(() => undefined);
    throw error;
  }
}

/** Gives back the counts of an attempt that was never verified. */
async function giveBack(db: Queryable, admitted: Admitted): Promise<void> {
  await releaseAttempt(db, admitted.address, ADDRESS_RULE);
  if (admitted.account !== null) await releaseAttempt(db, admitted.account, ACCOUNT_RULE);
  if (admitted.pair !== null) await releaseAttempt(db, admitted.pair, PAIR_RULE);
}

/** The person when the password is right, null when not, 'busy' when the gate has no room: no verification. */
async function verify(deps: SignInDeps, email: string, password: string): Promise<UserRow | null | 'busy'> {
  const user = email.length <= 254 ? await findUserByEmail(deps.pool, email.trim()) : null;
  const stored = user !== null && user.state === 'active' ? await passwordHashOf(deps.pool, user.id) : null;
  const leave = await deps.gate.enter();
  if (leave === null) return 'busy';
  try {
    const accepted = (await checkPassword(stored, password)) && user !== null;
    deps.metrics.passwordVerifications.inc({ outcome: accepted ? 'accepted' : 'refused' });
    return accepted ? user : null;
  } finally {
    leave();
  }
}

/** The signed-in person, or 401 unauthorized / 429 too_many_attempts. `address` is the throttle key. */
export async function signInWithPassword(
  deps: SignInDeps,
  input: { email: string; password: string; address: string; clientAddress: string },
): Promise<UserRow> {
  const keys = { address: input.address, account: emailKey(deps.keyring, input.email) };
  const now = deps.now();
  const admitted = await admit(deps, keys, now);
  let user: UserRow | null | 'busy';
  try {
    user = await verify(deps, input.email, input.password);
  } catch (error) {
    await giveBack(deps.pool, admitted).catch(() => undefined); // the first error is the one to report
    throw error;
  }
  if (user === 'busy') {
    await giveBack(deps.pool, admitted);
    throw throttled(deps.metrics, 'busy', 1);
  }
  if (user === null) {
    // Counts kept. A refusal in the account's own count also marks this address against the
    // account, so it gets no extra try should the account lock.
    if (admitted.account !== null) await recordRefusal(deps.pool, 'pair', pairKey(keys.account, keys.address), PAIR_RULE, now);
    await writeAccountAudit(deps.pool, 'session.sign_in_refused', null, { emailHash: keys.account }, { kind: 'none', clientAddress: input.clientAddress });
    throw errors.unauthorized();
  }
  await releaseAttempt(deps.pool, admitted.address, ADDRESS_RULE);
  // A success during the account's lock lifts it for nobody else: the lock came from failures
  // elsewhere. This address's earlier refusals against the account were typing, not guessing.
  if (admitted.account !== null) await clearCount(deps.pool, 'account', keys.account);
  await clearCount(deps.pool, 'pair', pairKey(keys.account, keys.address));
  await recordSignIn(deps.pool, user.id, new Date(now));
  return user;
}
