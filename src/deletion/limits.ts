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
