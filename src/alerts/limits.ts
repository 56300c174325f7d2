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
/** Notifications sent per pass. */
export const ALERT_SEND_BATCH = 20;
/** Journeys linked from one notification; the count says how many there were. */
export const MAX_ALERT_JOURNEYS = 20;
/** Rules per project. */
export const MAX_ALERT_RULES = 100;
/** Deliveries listed per request, newest first. */
export const MAX_DELIVERY_LOG = 200;
