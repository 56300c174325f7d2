// Password sign-in attempts, counted in PostgreSQL per client address, per account and per address
// against one account, so that every instance of jtrace on one database sees one count
// (docs/roles.md, "Throttling"). An attempt is counted by one upsert BEFORE its password is
// verified, and that upsert refuses it when the key is locked: reading the lock, verifying for
// 40 ms and counting the refusal afterwards let every request of a burst pass the lock (800 of 800
// guesses sent at once were verified). The count is kept when the password is refused and given
// back when it is right or was never verified, so successes do not count as failures.
import type { Queryable } from '../db/pool.ts';

export interface ThrottleRule {
  /** Attempts within the window that lock (the limit-th is still verified). */
  limit: number;
  windowMs: number;
  lockMs: number;
}

/** The admin token's numbers (interface-spec 5): five a minute lock an address for five minutes. */
export const ADDRESS_RULE: ThrottleRule = { limit: 5, windowMs: 60_000, lockMs: 300_000 };
/** An account is guessed at from many addresses: ten in a quarter hour lock it for a quarter hour. */
export const ACCOUNT_RULE: ThrottleRule = { limit: 10, windowMs: 900_000, lockMs: 900_000 };
/** An address against an account that is locked: one try, then none until a quarter hour has passed. */
export const PAIR_RULE: ThrottleRule = { limit: 1, windowMs: 900_000, lockMs: 900_000 };

export type ThrottleScope = 'address' | 'account' | 'pair';

/** A counted attempt: the window it was counted in, to give it back to that window only. */
export interface Counted {
  scope: ThrottleScope;
  key: string;
  windowStartedAt: Date;
}

export type Reservation = { counted: Counted } | { retryAfterSeconds: number };

const secondsUntil = (untilMs: number, nowMs: number) => Math.max(1, Math.ceil((untilMs - nowMs) / 1000));

/** The key of an address's attempts against one account. */
export function pairKey(accountKey: string, addressKey: string): string {
  return `${accountKey}/${addressKey}`;
}

/** Seconds until the key is unlocked, or 0 when it is not locked. */
export async function lockedFor(db: Queryable, scope: ThrottleScope, key: string, nowMs: number): Promise<number> {
  const result = await db.query<{ locked_until: Date | null }>('SELECT locked_until FROM sign_in_throttle WHERE scope = $1 AND key = $2', [scope, key]);
  const until = result.rows[0]?.locked_until?.getTime() ?? 0;
  return until > nowMs ? secondsUntil(until, nowMs) : 0;
}

/**
 * Counts one attempt unless the key is locked; the attempt that reaches the limit sets the lock.
 * One statement: the row lock of the upsert orders concurrent attempts, on any instance.
 */
export async function reserveAttempt(db: Queryable, scope: ThrottleScope, key: string, rule: ThrottleRule, nowMs: number): Promise<Reservation> {
  const counted = await countAttempt(db, scope, key, rule, nowMs, false);
  if (counted !== null) return { counted: { scope, key, windowStartedAt: counted } };
  // Refused: the lock's end for Retry-After, read apart; a lock given back since then answers 1 s.
  const state = await db.query<{ locked_until: Date | null }>('SELECT locked_until FROM sign_in_throttle WHERE scope = $1 AND key = $2', [scope, key]);
  const until = state.rows[0]?.locked_until?.getTime() ?? nowMs;
  return { retryAfterSeconds: secondsUntil(until, nowMs) };
}

/**
 * Counts a refusal whether or not the key is locked (a lock is not extended): a count that a
 * concurrent attempt gives back later must not take this refusal with it.
 */
export async function recordRefusal(db: Queryable, scope: ThrottleScope, key: string, rule: ThrottleRule, nowMs: number): Promise<void> {
  await countAttempt(db, scope, key, rule, nowMs, true);
}

/** The window the attempt was counted in, or null when the key is locked (and `evenWhenLocked` is false). */
async function countAttempt(db: Queryable, scope: ThrottleScope, key: string, rule: ThrottleRule, nowMs: number, evenWhenLocked: boolean): Promise<Date | null> {
  const locked = '(t.locked_until IS NOT NULL AND t.locked_until > $3)';
  // fresh: not locked now, and the window has passed or an earlier lock has run out: counting restarts.
  const fresh = `(NOT ${locked} AND ((t.locked_until IS NOT NULL AND t.locked_until <= $3) OR t.window_started_at <= $3::timestamptz - make_interval(secs => $4 / 1000.0)))`;
  const count = `(CASE WHEN ${fresh} THEN 1 ELSE t.failures + 1 END)`;
  const lockEnd = `$3::timestamptz + make_interval(secs => $6 / 1000.0)`;
  const result = await db.query<{ window_started_at: Date }>(
    `INSERT INTO sign_in_throttle AS t (scope, key, failures, window_started_at, locked_until)
     VALUES ($1, $2, 1, $3, CASE WHEN $5::integer <= 1 THEN ${lockEnd} END)
     ON CONFLICT (scope, key) DO UPDATE SET
       failures = ${count},
       window_started_at = CASE WHEN ${fresh} THEN $3 ELSE t.window_started_at END,
       locked_until = CASE WHEN ${locked} THEN t.locked_until WHEN ${count} >= $5 THEN ${lockEnd} END
     WHERE $7::boolean OR (NOT ${locked} AND (${fresh} OR t.failures < $5))
     RETURNING window_started_at`,
    [scope, key, new Date(nowMs), rule.windowMs, rule.limit, rule.lockMs, evenWhenLocked],
  );
  return result.rows[0]?.window_started_at ?? null;
}

/**
 * Gives a counted attempt back (its password was right, or it was never verified): one less in
 * its window, and a lock that this attempt completed is lifted. Nothing when the window has
 * restarted since.
 */
export async function releaseAttempt(db: Queryable, counted: Counted, rule: ThrottleRule): Promise<void> {
  await db.query(
    `UPDATE sign_in_throttle SET failures = failures - 1, locked_until = CASE WHEN failures - 1 < $4 THEN NULL ELSE locked_until END
     WHERE scope = $1 AND key = $2 AND window_started_at = $3 AND failures > 0`,
    [counted.scope, counted.key, counted.windowStartedAt, rule.limit],
  );
}

/**
 * A successful sign-in clears the account's count and its address's refusals against the account
 * (not the address's own count: one success proves little about its other guesses).
 */
export async function clearCount(db: Queryable, scope: 'account' | 'pair', key: string): Promise<void> {
  await db.query('DELETE FROM sign_in_throttle WHERE scope = $1 AND key = $2', [scope, key]);
}
