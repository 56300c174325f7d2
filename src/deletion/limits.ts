// Deletion limits (interface spec section 8). Each is named once; the routes, the CLI and the
// retention sweep read them from here.

/** Journeys per deletion transaction (erasure, range deletion, retention): bounds lock time and WAL per commit. */
export const DELETION_BATCH_SIZE = 500;

/** Longest journey id in code points; longer ids can never exist (journeys.id CHECK). */
export const MAX_JOURNEY_ID_LENGTH = 128;

/** Longest erasure value in code points (section 8, Erasure value). */
export const MAX_ERASURE_VALUE_LENGTH = 512;

/** Most journeys an erasure dry run lists; `total` still counts every match. */
export const MAX_ERASURE_DRY_RUN_JOURNEYS = 1000;

/** Most journeys `delete:range --dry-run` prints; it prints the total as well. */
export const MAX_RANGE_DRY_RUN_JOURNEYS = 1000;

/** The lock shared by the retention sweep and `delete:range` (src/db/advisory-lock.ts). */
export { RETENTION_LOCK_KEY } from '../db/advisory-lock.ts';

/**
 * Ages of the rows that only ever expire, removed by the retention sweep
 * (docs/retention-and-deletion.md, "Expired rows").
 * Throttle rows: milliseconds since their window started; far past the longest window (15
 * minutes), and a row goes only once any lock has run out too, so no count is lost.
 */
export const SPENT_THROTTLE_AGE_MS = 3_600_000;
/** Days a session is kept after it ended (idle or too old): the sessions list shows recent ones. */
export const ENDED_SESSION_KEEP_DAYS = 7;
/** Days a password link is kept after it was used or expired: the members list says "expired" until then. */
export const SPENT_LINK_KEEP_DAYS = 30;
/** Days after queueing that a sent or given-up alert notification goes, with its delivery log. */
export const FINISHED_ALERT_KEEP_DAYS = 30;
