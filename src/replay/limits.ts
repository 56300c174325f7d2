// Every replay limit in one place, each with its unit and the reason it exists.

/** Milliseconds for a whole replay (resolution, connect, response, body): fixed by section 8. */
export const REPLAY_TIMEOUT_MS = 10_000;
/** Bytes of response body read; more fails the run (section 8, not configurable). */
export const REPLAY_RESPONSE_READ_LIMIT_BYTES = 262_144;

/** Code points of a destination name: fits a line of the list and an audit row. */
export const MAX_DESTINATION_NAME_LENGTH = 200;
/** Characters of a base URL; well above real origins plus a base path. */
export const MAX_BASE_URL_LENGTH = 2_048;
/** Characters of a replay path (with its query string), as for the base URL. */
export const MAX_REPLAY_PATH_LENGTH = 2_048;
/** Headers per destination: a handful is normal, the cap bounds the encrypted blob. */
export const MAX_DESTINATION_HEADERS = 50;
/** Characters of a header name. */
export const MAX_HEADER_NAME_LENGTH = 256;
/** Characters of a header value: tokens and signed cookies fit; servers refuse far less anyway. */
export const MAX_HEADER_VALUE_LENGTH = 8_192;
/** Destination ids on delete (section 8): longer is 400 invalid_request, not 404. */
export const MAX_DESTINATION_ID_LENGTH = 512;
/** Event ids are at most 128 code points (event protocol 2.2): longer cannot exist. */
export const MAX_EVENT_ID_LENGTH = 128;

/** Header values shorter than this are not scrubbed from responses (too likely to match by chance). */
export const MIN_SCRUBBED_VALUE_LENGTH = 8;
/**
 * Nesting levels of a stored response. Deeper JSON is kept as its text: it would cost a deep
 * recursion here and in PostgreSQL's jsonb input, and the comparison stops at 32 levels anyway.
 */
export const MAX_RESPONSE_DEPTH = 100;

export const REDACTED = '[REDACTED]';
