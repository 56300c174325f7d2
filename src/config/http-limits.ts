import { z } from 'zod';
import { ConfigError } from './config.ts';

/**
 * How long a client may take to send a request and how many connections it may hold: without
 * them anyone can hold the server's sockets and memory without a credential
 * (docs/hostile-input.md). Kept apart from the main configuration so each limit reads alone.
 */
export interface HttpLimits {
  /** Whole request head (request line and headers), in ms. */
  headersTimeoutMs: number;
  /** Whole request, head and body, in ms; at least headersTimeoutMs. */
  requestTimeoutMs: number;
  /** A keep-alive connection with no request in flight is closed after this, in ms. */
  idleTimeoutMs: number;
  /** Open connections at most; further ones are closed at once. */
  maxConnections: number;
  /**
   * A connection whose answer waits unsent (the client reads nothing) for this long, in ms, is
   * closed. Optional so that limits written out in full before it existed stay valid.
   */
  writeTimeoutMs?: number;
}

/** Default of HTTP_WRITE_TIMEOUT_MS: as long as a whole request may take to arrive. */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

export const DEFAULT_HTTP_LIMITS: HttpLimits = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // Longer than the 60 s idle timeout of common load balancers, so they close first.
  idleTimeoutMs: 72_000,
  maxConnections: 1_000,
  writeTimeoutMs: DEFAULT_WRITE_TIMEOUT_MS,
});

const VARIABLES = {
  headersTimeoutMs: ['HTTP_HEADERS_TIMEOUT_MS', 100, 600_000],
  requestTimeoutMs: ['HTTP_REQUEST_TIMEOUT_MS', 100, 3_600_000],
  idleTimeoutMs: ['HTTP_IDLE_TIMEOUT_MS', 100, 3_600_000],
  maxConnections: ['HTTP_MAX_CONNECTIONS', 1, 1_000_000],
  writeTimeoutMs: ['HTTP_WRITE_TIMEOUT_MS', 100, 3_600_000],
} as const;

export function loadHttpLimits(env: Record<string, string | undefined>): HttpLimits {
  const limits = { ...DEFAULT_HTTP_LIMITS };
  for (const [field, [name, min, max]] of Object.entries(VARIABLES) as Array<[keyof HttpLimits, readonly [string, number, number]]>) {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') continue;
    const parsed = z.coerce.number().int().min(min).max(max).safeParse(raw);
    if (!/^\d+$/.test(raw) || !parsed.success) {
      throw new ConfigError(name, `must be a whole number from ${min} to ${max}`);
    }
    limits[field] = parsed.data;
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', 'must not be longer than HTTP_REQUEST_TIMEOUT_MS');
  }
  return limits;
}
