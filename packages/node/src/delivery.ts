// Delivery of queued envelopes through POST /v1/events/batch (event protocol 1.1, 8): bounded
// queue dropping the oldest, batches of at most 100, the client retry rule of 8.4, a circuit
// breaker, and flush/shutdown that never wait past their deadline. Every recorded event ends in
// exactly one of sent, rejected or dropped.
import { CircuitBreaker } from './breaker.ts';
import type { BuiltEnvelope } from './event-builder.ts';
import type { Reporter } from './diagnostics.ts';
import type { Counters, DropCause } from './types.ts';

/** 8.4: a transient per-event refusal is resent for at most this long after the first one… */
export const RESEND_WINDOW_MS = 30_000;
/** …or this many sends in all, whichever comes first. */
export const MAX_SENDS = 10;
const IDLE_POLL_MS = 10;
/**
 * Bytes of a response body read at most. A batch of 100 verdicts is a few tens of KB even with
 * refusal details; past this the rest is not read (a 3 GB answer once took the host to 1.25 GB)
 * and the answer counts as one without usable verdicts.
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

interface Pending {
  readonly envelope: BuiltEnvelope;
  sends: number;
  firstRefusalAt?: number;
  notBefore: number;
}

export interface DeliverySettings {
  readonly url: string;
  readonly apiKey: string;
  readonly batchSize: number;
  readonly flushIntervalMs: number;
  readonly maxQueueSize: number;
  /** Characters of envelope JSON waiting at most: a few large events weigh as much as many small ones. */
  readonly maxQueueBytes: number;
  readonly requestTimeoutMs: number;
  readonly breakerThreshold: number;
  readonly breakerCooldownMs: number;
  readonly resendDelayMs: number;
  readonly fetch: typeof fetch;
}

type Verdict = { status?: unknown; error?: { httpStatus?: unknown; code?: unknown } };

export function emptyCounters(): Counters {
  return {
    recorded: 0,
    sent: 0,
    rejected: 0,
    dropped: 0,
    droppedByCause: { queue_full: 0, retry_exhausted: 0, request_refused: 0, shutdown: 0, disabled: 0, capture_failed: 0 },
    unconfirmed: 0,
    queued: 0,
    inFlight: 0,
    requests: 0,
    requestFailures: 0,
    resent: 0,
    breakerOpens: 0,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Delivery {
  private queue: Pending[] = [];
  private head = 0;
  /** Envelope JSON characters of the waiting events (queue[head..]). */
  private queuedChars = 0;
  private inFlight: Pending[] = [];
  /** Envelope JSON characters of the batch being sent: held in memory as much as the queue. */
  private inFlightChars = 0;
  private request: Promise<void> | null = null;
  private abort: AbortController | null = null;
  private closed = false;
  private pumpScheduled = false;
  private readonly timer: NodeJS.Timeout;
  private readonly breaker: CircuitBreaker;

  constructor(
    private readonly settings: DeliverySettings,
    private readonly counters: Counters,
    private readonly report: Reporter,
    private readonly now: () => number = Date.now,
  ) {
    this.breaker = new CircuitBreaker(settings.breakerThreshold, settings.breakerCooldownMs, (failures) => {
      counters.breakerOpens += 1;
      report({
        kind: 'breaker_opened',
        message: `${failures} requests to the jtrace server failed in a row; sending pauses for ${settings.breakerCooldownMs} ms.`,
        detail: { failures, cooldownMs: settings.breakerCooldownMs },
      });
    });
    this.timer = setInterval(() => this.pump(), settings.flushIntervalMs);
    // The recorder must never keep the host process alive.
    this.timer.unref();
  }

  get size(): number {
    return this.queue.length - this.head;
  }

  drop(count: number, cause: DropCause): void {
    if (count <= 0) return;
    this.counters.dropped += count;
    this.counters.droppedByCause[cause] += count;
    this.report({ kind: 'dropped', message: `${count} event(s) dropped: ${cause}.`, detail: { count, cause } });
  }

  enqueue(envelope: BuiltEnvelope): void {
    if (this.closed) {
      this.drop(1, 'shutdown');
      return;
    }
    this.queue.push({ envelope, sends: 0, notBefore: 0 });
    this.queuedChars += envelope.json.length;
    this.trimOldest();
    this.compact();
    this.counters.queued = this.size;
    if (this.size >= this.settings.batchSize) this.schedulePump();
  }

  /**
   * A full batch is sent on the next turn of the event loop, never inside the host's call that
   * filled it: the first send's set-up (fetch's dispatcher, the connection) is not the host's cost.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    }).unref();
  }

  /**
   * Drops the oldest waiting events while the queue is over its count, or what is held (waiting
   * and being sent) is over its size. A lone event larger than the bound is still sent when
   * nothing else is held.
   */
  private trimOldest(): void {
    let dropped = 0;
    const keep = () => (this.inFlightChars > 0 ? 0 : 1);
    while (
      this.size > this.settings.maxQueueSize ||
      (this.queuedChars + this.inFlightChars > this.settings.maxQueueBytes && this.size > keep())
    ) {
      this.queuedChars -= (this.queue[this.head] as Pending).envelope.json.length;
      this.head += 1;
      dropped += 1;
    }
    this.drop(dropped, 'queue_full');
  }

  /** Drops consumed slots once they outweigh the live ones, so memory stays bounded. */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  /** Starts one request if none is under way, the breaker allows it and something is due. */
  pump(): void {
    // Once shut down, no request starts: the host may exit the moment shutdown() resolves.
    if (this.closed || this.request !== null || this.size === 0) return;
    const now = this.now();
    if (!this.breaker.canSend(now)) return;
    const batch: Pending[] = [];
    const later: Pending[] = [];
    while (batch.length < this.settings.batchSize && this.head < this.queue.length) {
      const item = this.queue[this.head++] as Pending;
      (item.notBefore <= now ? batch : later).push(item);
    }
    for (const item of batch) this.queuedChars -= item.envelope.json.length;
    // Events still waiting out a resend delay go back in front, in their order.
    if (later.length > 0) this.queue.splice(this.head, 0, ...later);
    this.compact();
    if (batch.length === 0) return;
    this.counters.queued = this.size;
    this.inFlight = batch;
    this.inFlightChars = batch.reduce((sum, item) => sum + item.envelope.json.length, 0);
    this.counters.inFlight = batch.length;
    this.request = this.send(batch).finally(() => {
      this.inFlight = [];
      this.inFlightChars = 0;
      this.counters.inFlight = 0;
      this.request = null;
      this.abort = null;
      if (!this.closed) queueMicrotask(() => this.pump());
    });
  }

  private async send(batch: Pending[]): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    let timeout: ReturnType<typeof setTimeout> | undefined;
    // The timer also settles the request itself: a `fetch` (or a body) that ignores the abort
    // signal would otherwise hold delivery forever.
    const timedOut = new Promise<never>((_resolve, reject) => {
      timeout = setTimeout(() => {
        abort.abort();
        reject(Object.assign(new Error('The request took longer than requestTimeoutMs.'), { name: 'TimeoutError' }));
      }, this.settings.requestTimeoutMs);
      // A request under way never keeps the host process alive.
      timeout.unref?.();
    });
    this.counters.requests += 1;
    for (const item of batch) item.sends += 1;
    let status = 0;
    let body: unknown;
    try {
      const exchange = (async () => {
        const response = await this.settings.fetch(this.settings.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${this.settings.apiKey}` },
          body: `{"events":[${batch.map((item) => item.envelope.json).join(',')}]}`,
          signal: abort.signal,
          // A redirect would send the batch, and its key, to another origin: never followed.
          redirect: 'manual',
        });
        return { status: response.status, text: await readCapped(response, MAX_RESPONSE_BYTES) };
      })();
      // Settling after the timeout is ignored, never an unhandled rejection.
      exchange.catch(() => {});
      const answer = await Promise.race([exchange, timedOut]);
      status = answer.status;
      try {
        body = JSON.parse(answer.text);
      } catch {
        body = undefined;
      }
    } catch (error) {
      status = 0;
      body = error;
    } finally {
      clearTimeout(timeout);
    }
    // Events counted at shutdown while this request hung are not counted twice.
    if (this.inFlight !== batch) return;
    // Settled: what is resent is counted again as waiting.
    this.inFlightChars = 0;
    if (this.closed && abort.signal.aborted) {
      this.drop(batch.length, 'shutdown');
      return;
    }
    this.settle(batch, status, body);
  }

  private settle(batch: Pending[], status: number, body: unknown): void {
    const now = this.now();
    if (status === 0 || status >= 500) {
      this.counters.requestFailures += 1;
      this.breaker.failure(now);
      const reason = status === 0 ? describeNetworkError(body) : `HTTP ${status}`;
      this.report({ kind: 'transport_error', message: `Sending ${batch.length} event(s) failed (${reason}); they will be resent.`, detail: { status, events: batch.length } });
      this.requeueFront(batch);
      return;
    }
    this.breaker.success();
    if (status >= 300 && status < 400) {
      // Resending would meet the same redirect: the endpoint is wrong, and only the host can fix it.
      this.report({
        kind: 'transport_error',
        message: `The server answered with a redirect (HTTP ${status}), which is not followed; set endpoint to the final URL. Its events are dropped.`,
        detail: { status },
      });
      this.drop(batch.length, 'request_refused');
      return;
    }
    if (status >= 400) {
      // A whole-request 4xx (bad key, body refused) is never resent (8.4).
      const code = errorCode(body);
      this.report({ kind: 'transport_error', message: `The server refused the request (HTTP ${status}${code ? `, ${code}` : ''}); its events are dropped.`, detail: { status, code } });
      this.drop(batch.length, 'request_refused');
      return;
    }
    const results = readResults(body);
    if (results === null || results.length < batch.length) {
      // 2xx without usable verdicts: not resent (8.4), counted as sent but unconfirmed.
      this.counters.sent += batch.length;
      this.counters.unconfirmed += batch.length;
      return;
    }
    const retry: Pending[] = [];
    batch.forEach((item, index) => this.settleOne(item, results[index] as Verdict, now, retry));
    if (retry.length > 0) this.requeueFront(retry);
  }

  private settleOne(item: Pending, verdict: Verdict, now: number, retry: Pending[]): void {
    if (verdict?.status === 'accepted') {
      this.counters.sent += 1;
      return;
    }
    const httpStatus = typeof verdict?.error?.httpStatus === 'number' ? verdict.error.httpStatus : 0;
    if (httpStatus < 500) {
      this.counters.rejected += 1;
      const code = typeof verdict?.error?.code === 'string' ? verdict.error.code : 'unknown';
      this.report({
        kind: 'event_rejected',
        message: `The server refused an event (${code}, HTTP ${httpStatus || 'none'}); it is not resent.`,
        detail: { code, httpStatus, eventId: item.envelope.id, name: item.envelope.name },
      });
      return;
    }
    item.firstRefusalAt ??= now;
    if (item.sends >= MAX_SENDS || now - item.firstRefusalAt >= RESEND_WINDOW_MS) {
      this.drop(1, 'retry_exhausted');
      return;
    }
    this.counters.resent += 1;
    item.notBefore = now + this.settings.resendDelayMs * item.sends;
    retry.push(item);
  }

  private requeueFront(items: Pending[]): void {
    this.queue.splice(this.head, 0, ...items);
    for (const item of items) this.queuedChars += item.envelope.json.length;
    this.trimOldest();
    this.compact();
    this.counters.queued = this.size;
  }

  /** Resolves true once nothing waits or is under way, false at the deadline; never rejects. */
  async flush(timeoutMs: number): Promise<boolean> {
    const deadline = this.now() + Math.max(0, timeoutMs);
    for (;;) {
      this.pump();
      if (this.size === 0 && this.request === null) return true;
      const left = deadline - this.now();
      if (left <= 0) return false;
      await sleep(Math.min(IDLE_POLL_MS, left));
    }
  }

  /** Stops the timer, flushes until the deadline, then gives up on what is left. */
  async shutdown(timeoutMs: number): Promise<boolean> {
    clearInterval(this.timer);
    const start = this.now();
    const drained = await this.flush(timeoutMs);
    this.closed = true;
    if (this.request !== null) {
      this.abort?.abort();
      // An aborted fetch settles at once; the bound keeps a misbehaving fetch from holding us.
      await Promise.race([this.request, sleep(Math.max(0, Math.min(50, timeoutMs - (this.now() - start))))]);
      if (this.request !== null && this.inFlight.length > 0) {
        // The fetch ignored the abort: count its events now and ignore its late answer.
        const stranded = this.inFlight;
        this.inFlight = [];
        this.inFlightChars = 0;
        this.drop(stranded.length, 'shutdown');
        this.request = null;
      }
    }
    this.drop(this.size, 'shutdown');
    this.queue = [];
    this.head = 0;
    this.queuedChars = 0;
    this.counters.queued = 0;
    return drained;
  }
}

/**
 * The body as text, reading at most `max` bytes: past it the rest is cancelled and '' returned,
 * which parses as no verdicts. A body cut off by the network throws, as a failed request.
 */
async function readCapped(response: Response, max: number): Promise<string> {
  const body = response.body;
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      reader.cancel().catch(() => {});
      return '';
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'AbortError' || error.name === 'TimeoutError') return 'timed out';
    const cause = (error as { cause?: { code?: unknown } }).cause;
    if (cause && typeof cause.code === 'string') return cause.code;
    return error.name;
  }
  return 'network error';
}

function errorCode(body: unknown): string | undefined {
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

function readResults(body: unknown): unknown[] | null {
  const results = (body as { data?: { results?: unknown } } | undefined)?.data?.results;
  return Array.isArray(results) ? results : null;
}
