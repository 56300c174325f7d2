import type { ErrorDetail } from '../protocol/error-detail.ts';
export type { ErrorDetail } from '../protocol/error-detail.ts';

/**
 * Every stable error code of the interface spec (section 7) and the event protocol (9.2, 9.3)
 * with its HTTP status: the one place a code gets its status, so none can leave with another.
 */
export const ERROR_STATUS = {
  invalid_event: 400,
  invalid_request: 400,
  invalid_query: 400,
  invalid_cursor: 400,
  invalid_environment_type: 400,
  bad_url: 400,
  malformed_json: 400,
  unsupported_protocol_version: 400,
  max_depth_exceeded: 400,
  max_keys_exceeded: 400,
  max_string_length_exceeded: 400,
  unstorable_payload: 400,
  // 400 for an envelope over the limit or over 100 envelopes; 413 for a body over the limit.
  payload_too_large: 400,
  unauthorized: 401,
  unauthorized_environment: 403,
  not_found: 404,
  project_not_found: 404,
  environment_not_found: 404,
  no_captured_input: 409,
  destination_disabled: 409,
  event_id_conflict: 409,
  journey_environment_mismatch: 409,
  parameter_too_long: 414,
  unsupported_media_type: 415,
  too_many_attempts: 429,
  // The web interface: a state-changing request not from its own origin (docs/web-interface.md).
  forbidden_origin: 403,
  // A person's role in the project does not allow the action (docs/roles.md).
  forbidden: 403,
  // POST /v1/users, user:create: the e-mail address has an account already.
  email_taken: 409,
  // POST /v1/projects: another project has the slug (project:create says so and exits 1).
  slug_taken: 409,
  // POST /v1/projects/:projectId/environments: the project has an environment of this name.
  environment_exists: 409,
  // DELETE of an environment that API keys, journeys or alert rules still use.
  environment_in_use: 409,
  // An invitation into a project for someone who already holds a role in it (docs/roles.md).
  already_member: 409,
  internal_error: 500,
  storage_error: 500,
  query_timeout: 503,
  // The database cannot be reached: transient, sent with Retry-After (docs/hostile-input.md).
  database_unavailable: 503,
  // This process's ENCRYPTION_KEY was rotated away: it would act on part of the data only
  // (docs/operations.md, "Key rotation"). Another instance, or a restart with the new key, answers.
  key_superseded: 503,
  // This instance is stopping (SIGTERM): a request on a connection it still had open is sent to
  // another instance by the client or the proxy (docs/deployment.md, "Rolling restart").
  shutting_down: 503,
  // Node's HTTP parser refused the request: headers or body not received in time, or not valid HTTP.
  request_timeout: 408,
  bad_request: 400,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The second status the spec gives a code (event-protocol 9.2: a body over the limit is 413). */
const OTHER_STATUS: Partial<Record<ErrorCode, readonly number[]>> = { payload_too_large: [413] };

/** The status of a code, or throws when the code may not leave with the given one. */
export function statusOf(code: ErrorCode, status: number = ERROR_STATUS[code]): number {
  if (status !== ERROR_STATUS[code] && !OTHER_STATUS[code]?.includes(status)) {
    throw new TypeError(`error code ${code} is never sent with status ${status}`);
  }
  return status;
}

/** Every status a code may leave with (the OpenAPI document lists each). */
export function statusesOf(code: ErrorCode): number[] {
  return [ERROR_STATUS[code], ...(OTHER_STATUS[code] ?? [])];
}

/** The one error type of jtrace: capability code throws it, the error handler renders it. */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;

  /** The status comes from ERROR_STATUS. */
  constructor(code: ErrorCode, message: string, details?: ErrorDetail[], headers?: Record<string, string>);
  /** An explicit status, checked against ERROR_STATUS (a 413 payload_too_large). */
  constructor(status: number, code: ErrorCode, message: string, details?: ErrorDetail[], headers?: Record<string, string>);
  constructor(...args: [ErrorCode, string, ErrorDetail[]?, Record<string, string>?] | [number, ErrorCode, string, ErrorDetail[]?, Record<string, string>?]) {
    const [status, code, message, details, headers] =
      typeof args[0] === 'number'
        ? (args as [number, ErrorCode, string, ErrorDetail[]?, Record<string, string>?])
        : ([undefined, ...args] as [undefined, ErrorCode, string, ErrorDetail[]?, Record<string, string>?]);
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = statusOf(code, status);
    if (details !== undefined) this.details = details;
    if (headers !== undefined) this.headers = headers;
  }
}

export const GENERIC_INTERNAL_MESSAGE = 'An unexpected error occurred.';
/** Retry-After of a 503 while the database is unreachable, in seconds: a restart or failover takes a few. */
export const DATABASE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export const errors = {
  invalidQuery: (path: string, message: string) =>
    new AppError('invalid_query', message, [{ path, message }]),
  invalidCursor: (message = 'The cursor is malformed.') =>
    new AppError('invalid_cursor', message, [{ path: 'cursor', message }]),
  invalidRequest: (path: string, message: string) =>
    new AppError('invalid_request', message, [{ path, message }]),
  unauthorized: () => new AppError('unauthorized', 'The credential was refused.'),
  notFound: (what = 'The resource was not found.') => new AppError('not_found', what),
  projectNotFound: () =>
    new AppError('project_not_found', 'No project was selected: send x-service-project-id with a project id.'),
  queryTimeout: () =>
    new AppError('query_timeout', 'The query took too long and was cancelled; try again or narrow it.'),
  internal: () => new AppError('internal_error', GENERIC_INTERNAL_MESSAGE),
  shuttingDown: () =>
    new AppError('shutting_down', 'This instance is stopping; send the request again.', undefined, {
      'retry-after': '1',
      connection: 'close',
    }),
  databaseUnavailable: () =>
    new AppError('database_unavailable', 'The service cannot reach its database; retry shortly.', undefined, {
      'retry-after': String(DATABASE_UNAVAILABLE_RETRY_AFTER_SECONDS),
    }),
};
