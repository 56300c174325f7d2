// Refused password sign-ins, counted in PostgreSQL per client address and per account, so that
// every instance of jtrace on one database sees one count (docs/roles.md, "Throttling"). One
// upsert per refusal decides atomically: two instances refusing at once both count.
import type { Queryable } from '../db/pool.ts';

export interface ThrottleRule {
  /** Refusals within the window that lock. */
  limit: number;
  windowMs: number;
  lockMs: number;
}

/** The admin token's numbers (interface-spec 5): five a minute lock an address for five minutes. */
export const ADDRESS_RULE: ThrottleRule = { limit: 5, windowMs: 60_000, lockMs: 300_000 };
/** An account is guessed at from many addresses: ten in a quarter hour lock it for a quarter hour. */
export const ACCOUNT_RULE: ThrottleRule = { limit: 10, windowMs: 900_000, lockMs: 900_000 };

export type ThrottleScope = 'address' | 'account';

/** Seconds until the key is unlocked, or 0 when it is not locked. */
export async function lockedFor(db: Queryable, scope: ThrottleScope, key: string, nowMs: number): Promise<number> {
  const result = await db.query<{ locked_until: Date | null }>('SELECT locked_until FROM sign_in_throttle WHERE scope = $1 AND key = $2', [scope, key]);
  const until = result.rows[0]?.locked_until?.getTime() ?? 0;
  return until > nowMs ? Math.ceil((until - nowMs) / 1000) : 0;
}

export async function recordRefusal(db: Queryable, scope: ThrottleScope, key: string, rule: ThrottleRule, nowMs: number): Promise<void> {
  // fresh: the window has passed or an earlier lock has run out, so counting starts again.
  const fresh = `(t.window_started_at <= $3::timestamptz - make_interval(secs => $4 / 1000.0)
                 OR (t.locked_until IS NOT NULL AND t.locked_until <= $3))`;
  await db.query(
    `INSERT INTO sign_in_throttle AS t (scope, key, failures, window_started_at) VALUES ($1, $2, 1, $3)
     ON CONFLICT (scope, key) DO UPDATE SET
       failures = CASE WHEN ${fresh} THEN 1 ELSE t.failures + 1 END,
       window_started_at = CASE WHEN ${fresh} THEN $3 ELSE t.window_started_at END,
       locked_until = CASE
         WHEN (CASE WHEN ${fresh} THEN 1 ELSE t.failures + 1 END) >= $5 THEN $3::timestamptz + make_interval(secs => $6 / 1000.0)
         WHEN ${fresh} THEN NULL
         ELSE t.locked_until END`,
    [scope, key, new Date(nowMs), rule.windowMs, rule.limit, rule.lockMs],
  );
}

/** A successful sign-in clears the account's count (not the address's: one success proves little). */
export async function clearAccount(db: Queryable, key: string): Promise<void> {
  await db.query(`DELETE FROM sign_in_throttle WHERE scope = 'account' AND key = $1`, [key]);
}
