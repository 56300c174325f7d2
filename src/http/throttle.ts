// In-memory throttle of refused credentials (interface-spec 5, "Throttling of failed
// credentials"). Per process, reset on restart, bounded in memory.
//
// The caller owns the policy of what counts (no Authorization header and database errors do
// not; see the spec) and the order: check() before looking at any credential, recordFailure()
// after a refusal. Time is passed in so tests need no fake timers.

export interface ThrottleOptions {
  /** Refusals within windowMs that lock the address. */
  maxFailures?: number;
  windowMs?: number;
  lockMs?: number;
  /** Addresses remembered at most; the least recently failed is forgotten first. */
  maxAddresses?: number;
  /**
   * Told of each lock when it is set and of each unlock when it is next seen (a check or a
   * refusal after the lock ran out), so an operator can log them.
   */
  onTransition?: (transition: 'locked' | 'unlocked', key: string, nowMs: number) => void;
}

export type ThrottleState = { locked: false } | { locked: true; retryAfterSeconds: number };

interface Entry {
  /** Times of refusals still inside the window, oldest first; never more than maxFailures. */
  failures: number[];
  /** End of the current lock, or 0 when not locked. */
  lockedUntil: number;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer`);
  }
  return value;
}

const NOT_LOCKED: ThrottleState = Object.freeze({ locked: false });

export class FailedCredentialThrottle {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly lockMs: number;
  readonly maxAddresses: number;
  readonly #onTransition: NonNullable<ThrottleOptions['onTransition']>;
  // A Map iterates in insertion order; deleting and re-inserting a key on every failure keeps
  // it ordered by last failure, so the first key is always the one to evict: O(1) per call.
  readonly #entries = new Map<string, Entry>();

  constructor(options: ThrottleOptions = {}) {
    this.maxFailures = positiveInteger('maxFailures', options.maxFailures ?? 5);
    this.windowMs = positiveInteger('windowMs', options.windowMs ?? 60_000);
    this.lockMs = positiveInteger('lockMs', options.lockMs ?? 300_000);
    this.maxAddresses = positiveInteger('maxAddresses', options.maxAddresses ?? 50_000);
    this.#onTransition = options.onTransition ?? (() => {});
  }

  /** Number of addresses currently remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** Whether the key is locked now. Does not change which key is least recently failed. */
  check(key: string, nowMs: number): ThrottleState {
    const entry = this.#entries.get(key);
    if (entry === undefined) return NOT_LOCKED;
    if (entry.lockedUntil > nowMs) {
      // Ceil so a client that waits Retry-After seconds is never still locked; at least 1
      // because Retry-After: 0 would invite an immediate retry.
      return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil((entry.lockedUntil - nowMs) / 1000)) };
    }
    this.#noteUnlock(key, entry, nowMs);
    // Not locked. Failures are cleared when a lock is set, so an entry with no failure left in
    // the window holds nothing worth remembering: drop it now rather than wait for eviction.
    if (this.#windowStart(entry, nowMs) === entry.failures.length) this.#entries.delete(key);
    return NOT_LOCKED;
  }

  /**
   * Count one refused credential. The maxFailures-th refusal within windowMs locks the key for
   * lockMs. Refusals recorded while locked (a burst that passed check() before the lock was
   * set, rule 4) neither extend the lock nor count towards the next one.
   */
  recordFailure(key: string, nowMs: number): void {
    let entry = this.#entries.get(key);
    if (entry !== undefined) {
      this.#entries.delete(key);
    } else {
      entry = { failures: [], lockedUntil: 0 };
    }
    // Re-insert: this key becomes the most recently failed.
    this.#entries.set(key, entry);

    if (entry.lockedUntil > nowMs) return;
    this.#noteUnlock(key, entry, nowMs);
    const start = this.#windowStart(entry, nowMs);
    if (start > 0) entry.failures.splice(0, start);
    entry.failures.push(nowMs);
    if (entry.failures.length >= this.maxFailures) {
      entry.lockedUntil = nowMs + this.lockMs;
      entry.failures.length = 0;
      this.#onTransition('locked', key, nowMs);
    }

    if (this.#entries.size > this.maxAddresses) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  /** Forget everything (tests, or an operator reset). */
  clear(): void {
    this.#entries.clear();
  }

  /** A lock that ran out is cleared, and reported once. */
  #noteUnlock(key: string, entry: Entry, nowMs: number): void {
    if (entry.lockedUntil === 0 || entry.lockedUntil > nowMs) return;
    entry.lockedUntil = 0;
    this.#onTransition('unlocked', key, nowMs);
  }

  /** Index of the first failure still inside the window ending at nowMs. */
  #windowStart(entry: Entry, nowMs: number): number {
    const cutoff = nowMs - this.windowMs;
    let i = 0;
    while (i < entry.failures.length && (entry.failures[i] as number) <= cutoff) i++;
    return i;
  }
}
