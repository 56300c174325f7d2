// Limits of alerts, each with its unit and reason.

/** How long an undelivered notification is retried, in milliseconds: after a day it is stale. */
export const ALERT_RETRY_WINDOW_MS = 24 * 3_600_000;
/** First retry delay in milliseconds; each failure doubles it. */
export const ALERT_BACKOFF_BASE_MS = 30_000;
/** Longest delay between two attempts, in milliseconds. */
export const ALERT_BACKOFF_MAX_MS = 3_600_000;
/** One attempt's deadline (resolution, connect, answer), in milliseconds. */
export const ALERT_SEND_TIMEOUT_MS = 10_000;
/** Milliseconds between two dispatcher passes. */
export const ALERT_PASS_INTERVAL_MS = 1_000;
/** Sends in flight at once to one receiver (scheme, host and port) of one project: spares the receiver. */
export const ALERT_SENDS_PER_RECEIVER = 4;
/** Sends in flight at once for one project: a project's stuck receivers hold only its own slots. */
export const ALERT_SENDS_PER_PROJECT = 8;
/** Sends in flight at once in all: bounds the sockets of one instance (32 projects' full shares). */
export const ALERT_SENDS_IN_FLIGHT = 256;
/**
 * Milliseconds a claimed notification is kept from other instances beyond its send's deadline:
 * covers the clock difference of two instances and the recording of the outcome. A claim whose
 * holder died lapses after this, and the notification is sent again.
 */
export const ALERT_CLAIM_MARGIN_MS = 60_000;
/**
 * Milliseconds after a window's end before its count is taken as final: the analyzer stamps a
 * finding with its clock before the transaction that stores it commits.
 */
export const ALERT_WINDOW_SETTLE_MS = 60_000;
/** How far back missed windows are evaluated, in milliseconds: older ones are past the retry window. */
export const ALERT_CATCH_UP_MS = ALERT_RETRY_WINDOW_MS;
/** Journeys linked from one notification; the count says how many there were. */
export const MAX_ALERT_JOURNEYS = 20;
/** Rules per project. */
export const MAX_ALERT_RULES = 100;
/** Deliveries listed per request, newest first. */
export const MAX_DELIVERY_LOG = 200;
