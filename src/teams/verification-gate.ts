// At most a few password verifications at once per process (docs/roles.md, "Throttling"). The
// throttle bounds the verifications of one address and of one account; sign-ins from many
// addresses at many accounts still pass it, and each costs about 40 ms of argon2id on libuv's
// thread pool, where a queue of hundreds made an unrelated sign-in wait 10 to 16 s. A short queue answers
// the excess at once instead (429, Retry-After 1). The queue is bounded by its length, not by a
// timer: a sign-in waits for at most maxWaiting / concurrency + 1 verifications, whatever the load.

export interface VerificationGateOptions {
  /** Verifications running at once: 2 leaves libuv's other threads to files and DNS, 38 MiB of argon2 memory. */
  concurrency: number;
  /** Sign-ins waiting for a slot; one more is refused at once. */
  maxWaiting: number;
}

/** Eight waiting behind two running: at most five verifications (about 0.2 s) ahead of a sign-in. */
export const DEFAULT_VERIFICATION_GATE: VerificationGateOptions = { concurrency: 2, maxWaiting: 8 };

/** Frees the slot; calling it again does nothing. */
export type Leave = () => void;

export class VerificationGate {
  readonly #options: VerificationGateOptions;
  #running = 0;
  // FIFO: the oldest waiter gets the next free slot.
  readonly #waiting: Array<(leave: Leave) => void> = [];

  constructor(options: VerificationGateOptions = DEFAULT_VERIFICATION_GATE) {
    if (!Number.isSafeInteger(options.concurrency) || options.concurrency < 1) throw new RangeError('concurrency must be a positive integer');
    if (!Number.isSafeInteger(options.maxWaiting) || options.maxWaiting < 0) throw new RangeError('maxWaiting must be a whole number');
    this.#options = options;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** A slot (call the returned function when done), or null at once when the queue is full. */
  enter(): Promise<Leave | null> {
    if (this.#running < this.#options.concurrency) {
      this.#running += 1;
      return Promise.resolve(this.#leaveOnce());
    }
    if (this.#waiting.length >= this.#options.maxWaiting) return Promise.resolve(null);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #leaveOnce(): Leave {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter: the running count stays.
      if (next === undefined) this.#running -= 1;
      else next(this.#leaveOnce());
    };
  }
}
