// Every limit of batch replays in one place, each with its unit and the reason it exists.

/** Journeys replayed when the request names no number: enough to judge a fix, cheap to wait for. */
export const DEFAULT_JOURNEYS = 50;
/** Journeys per batch: a development service is not a load test target. */
export const MAX_JOURNEYS = 1_000;
/** Replays started per second by default, and the bounds a request may set. */
export const DEFAULT_RATE_PER_SECOND = 5;
export const MIN_RATE_PER_SECOND = 0.1;
export const MAX_RATE_PER_SECOND = 50;
/** Replays in flight at once by default, and at most. */
export const DEFAULT_CONCURRENCY = 2;
export const MAX_CONCURRENCY = 8;

/**
 * Milliseconds a worker holds a batch without renewing: longer than one replay's 10-second
 * timeout, so a run in flight ends before another worker may take the batch over.
 */
export const BATCH_LEASE_MS = 30_000;
/** Milliseconds between lease renewals of a running batch. */
export const LEASE_RENEW_MS = 5_000;
/** Milliseconds between looks for a batch to run. */
export const BATCH_POLL_MS = 1_000;
/** Batches one worker runs at once; the rest wait for the next look. */
export const BATCHES_PER_WORKER = 4;
/** Results exported in one CSV: a batch holds at most MAX_JOURNEYS. */
export const MAX_EXPORT_ROWS = MAX_JOURNEYS;
