// Limits of the journey forensics reads. Each bounds the work or the answer of one request.

import { MAX_DEPTH } from '../protocol/limits.ts';

/** Events read per journey (issue scope, "Limits"): a longer journey is answered on these, flagged truncated. */
export const MAX_FORENSICS_EVENTS = 10_000;
/** Code points of `path`: a followed field is a short dotted path, not a document. */
export const MAX_FIELD_PATH_CODE_POINTS = 1_024;
/** Segments (keys and indices) of `path`: no stored payload is deeper than the envelope's depth limit (9.1). */
export const MAX_FIELD_PATH_SEGMENTS = MAX_DEPTH;
/** Paths listed by the changes read; past it the answer is flagged (a journey of 10,000 wide steps). */
export const MAX_CHANGED_PATHS = 1_000;
/** Steps listed per changed path; the total is still counted. */
export const MAX_STEPS_PER_CHANGE = 100;
/** Journey ids are at most 128 code points (event protocol 2.2): a longer one is simply not found. */
export const MAX_JOURNEY_ID_CODE_POINTS = 128;
/** Diff rows in one comparison answer, over every pair: 10,000 wide steps would be a 100 MB answer. */
export const MAX_COMPARE_DIFF_ROWS = 20_000;
