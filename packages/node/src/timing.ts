// Timing helpers: a queue job or an HTTP response turned into step metadata, under the metadata
// names the peer protocol's readers present (queue, attempt, deliveryCount, queueWaitMs,
// queueWaitBasis, httpStatusCode, retryAfterMs, targetHost). A value that cannot be measured is
// left off, never replaced by zero; nothing here throws into the host.

/** The largest duration written: 2^31 - 1 ms, as the readers of these names accept. */
const MAX_TIMING_MS = 2_147_483_647;
const MAX_TEXT = 256;

/** The fields of a queue job read (BullMQ's names; any object with them works). */
export interface QueueJob {
  queueName?: string;
  /** When the job was first enqueued, epoch ms. */
  timestamp?: number;
  /** When the current attempt began, epoch ms. */
  processedOn?: number;
  /** Attempts already made; the current one is one more. */
  attemptsMade?: number;
}

export interface QueueJobOptions {
  /** When a retried job became ready again, epoch ms: the basis of a retry's queue wait. */
  readyAgainAt?: number;
  /** The broker's own delivery count (SQS ApproximateReceiveCount), when it gives one. */
  deliveryCount?: number;
}

export interface HttpResponseLike {
  status?: number;
  headers?: { get(name: string): string | null | undefined } | Record<string, unknown>;
}

export interface HttpResponseOptions {
  /** The URL called: only its host (and a port other than the scheme's) is kept. */
  targetUrl?: string;
  /** When the response was seen, epoch ms, for a `Retry-After` date. Default: now. */
  now?: number;
}

function read<T>(get: () => T): T | undefined {
  try {
    return get();
  } catch {
    return undefined;
  }
}

function wholeIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/** `{ queue, attempt, deliveryCount, queueWaitMs, queueWaitBasis }` for a job being processed. */
export function queueJobMetadata(job: QueueJob | null | undefined, options?: QueueJobOptions | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (job === null || typeof job !== 'object') return out;
  const queue = read(() => job.queueName);
  if (typeof queue === 'string' && queue !== '' && [...queue].length <= MAX_TEXT) out.queue = queue;
  const made = read(() => job.attemptsMade);
  const attempt = wholeIn(made, 0, Number.MAX_SAFE_INTEGER - 1) ? made + 1 : undefined;
  if (attempt !== undefined) out.attempt = attempt;
  const deliveries = read(() => options?.deliveryCount);
  if (wholeIn(deliveries, 1, Number.MAX_SAFE_INTEGER)) out.deliveryCount = deliveries;
  // A first attempt waited since it was enqueued, unless the broker says it was delivered before;
  // a retry waited since it became ready again, which only the host can say.
  let since: unknown;
  let basis: string | undefined;
  if (attempt === 1 && (out.deliveryCount === undefined || out.deliveryCount === 1)) {
    since = read(() => job.timestamp);
    basis = 'initial-enqueue';
  } else if (attempt !== undefined && attempt > 1) {
    since = read(() => options?.readyAgainAt);
    basis = 'retry-ready';
  }
  const started = read(() => job.processedOn);
  if (basis !== undefined && wholeIn(since, 0, Number.MAX_SAFE_INTEGER) && wholeIn(started, 0, Number.MAX_SAFE_INTEGER)) {
    const waited = started - since;
    if (waited >= 0 && waited <= MAX_TIMING_MS) {
      out.queueWaitMs = waited;
      out.queueWaitBasis = basis;
    }
  }
  return out;
}

function header(headers: HttpResponseLike['headers'], name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const value: unknown = get.call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== name) continue;
    const value = (headers as Record<string, unknown>)[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  }
  return undefined;
}

// RFC 9110 10.2.3: delay-seconds, or an HTTP-date in its preferred form (the obsolete forms are
// rare enough in Retry-After to be left unmeasured rather than guessed).
const DELAY_SECONDS = /^[0-9]+$/;
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Milliseconds a `Retry-After` value asks to wait, or undefined when it cannot be read. */
export function retryAfterMs(value: string, now: number): number | undefined {
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) {
    const ms = Number(text) * 1000;
    return ms <= MAX_TIMING_MS ? ms : undefined;
  }
  const match = IMF_FIXDATE.exec(text);
  if (match === null) return undefined;
  const [, day, date, month, year, hour, minute, second] = match as unknown as string[];
  const at = Date.UTC(Number(year), MONTHS.indexOf(month as string), Number(date), Number(hour), Number(minute), Number(second));
  const parsed = new Date(at);
  // A date that does not exist (31 Feb) or a weekday that does not match it is not a date.
  if (parsed.getUTCDate() !== Number(date) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) return undefined;
  if (DAYS[parsed.getUTCDay()] !== day) return undefined;
  const ms = at - now;
  // A date already past asks for no wait at all.
  if (ms < 0) return 0;
  return ms <= MAX_TIMING_MS ? ms : undefined;
}

function targetHost(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') return undefined;
    // `host` drops the scheme's default port and never holds userinfo, path or query.
    return parsed.host.length <= MAX_TEXT ? parsed.host : undefined;
  } catch {
    return undefined;
  }
}

/** `{ httpStatusCode, retryAfterMs, targetHost }` for a fetch `Response` or any `{ status, headers }`. */
export function httpResponseMetadata(response: HttpResponseLike | null | undefined, options?: HttpResponseOptions | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (response === null || typeof response !== 'object') return out;
  const status = read(() => response.status);
  if (wholeIn(status, 100, 599)) out.httpStatusCode = status;
  const retryAfter = read(() => header(response.headers, 'retry-after'));
  const now = read(() => options?.now);
  if (retryAfter !== undefined) {
    const ms = retryAfterMs(retryAfter, typeof now === 'number' && Number.isFinite(now) ? now : Date.now());
    if (ms !== undefined) out.retryAfterMs = ms;
  }
  const url = read(() => options?.targetUrl);
  const host = typeof url === 'string' ? targetHost(url) : undefined;
  if (host !== undefined) out.targetHost = host;
  return out;
}
