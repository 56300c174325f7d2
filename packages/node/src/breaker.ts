// Circuit breaker for the jtrace server: after `threshold` failed requests in a row it stops
// sending for `cooldownMs`, then lets one trial request through; a success closes it again.
// Between failures while closed, sends back off exponentially so an outage costs few requests.

export const MAX_BACKOFF_MS = 30_000;
const BASE_BACKOFF_MS = 250;

export class CircuitBreaker {
  private failures = 0;
  private openUntil = 0;
  private nextAttemptAt = 0;
  private state: 'closed' | 'open' | 'half-open' = 'closed';

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly onOpen: (failures: number) => void,
  ) {}

  /** May a request start now? Moves an expired open breaker to half-open. */
  canSend(now: number): boolean {
    if (this.state === 'open') {
      if (now < this.openUntil) return false;
      this.state = 'half-open';
      return true;
    }
    return now >= this.nextAttemptAt;
  }

  /** Milliseconds until a request may start (0: now). */
  waitMs(now: number): number {
    if (this.state === 'open') return Math.max(0, this.openUntil - now);
    return Math.max(0, this.nextAttemptAt - now);
  }

  isOpen(): boolean {
    return this.state === 'open';
  }

  success(): void {
    this.failures = 0;
    this.nextAttemptAt = 0;
    this.state = 'closed';
  }

  failure(now: number): void {
    this.failures += 1;
    if (this.state === 'half-open' || this.failures >= this.threshold) {
      this.state = 'open';
      this.openUntil = now + this.cooldownMs;
      this.onOpen(this.failures);
      return;
    }
    this.nextAttemptAt = now + Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (this.failures - 1));
  }
}
