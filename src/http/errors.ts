import type { ErrorDetail } from '../protocol/error-detail.ts';

/** Stable error codes of the interface spec (section 7) and the event protocol (9.2, 9.3). */
export type ErrorCode =
  | 'invalid_event'
  | 'invalid_request'
  | 'invalid_query'
  | 'invalid_cursor'
  | 'invalid_environment_type'
  | 'bad_url'
  | 'malformed_json'
  | 'unsupported_protocol_version'
  | 'max_depth_exceeded'
  | 'max_keys_exceeded'
  | 'max_string_length_exceeded'
  | 'unstorable_payload'
  | 'unauthorized'
  | 'unauthorized_environment'
  | 'not_found'
  | 'project_not_found'
  | 'environment_not_found'
  | 'no_captured_input'
  | 'destination_disabled'
  | 'event_id_conflict'
  | 'journey_environment_mismatch'
  | 'payload_too_large'
  | 'parameter_too_long'
  | 'unsupported_media_type'
  | 'too_many_attempts'
  | 'forbidden_origin'
  | 'internal_error'
  | 'storage_error'
  | 'query_timeout';

export type { ErrorDetail } from '../protocol/error-detail.ts';

/** The one error type of jtrace: capability code throws it, the error handler renders it. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const GENERIC_INTERNAL_MESSAGE = 'An unexpected error occurred.';

export const errors = {
  invalidQuery: (path: string, message: string) =>
    new AppError(400, 'invalid_query', message, [{ path, message }]),
  invalidCursor: (message = 'The cursor is malformed.') =>
    new AppError(400, 'invalid_cursor', message, [{ path: 'cursor', message }]),
  invalidRequest: (path: string, message: string) =>
    new AppError(400, 'invalid_request', message, [{ path, message }]),
  unauthorized: () => new AppError(401, 'unauthorized', 'The credential was refused.'),
  notFound: (what = 'The resource was not found.') => new AppError(404, 'not_found', what),
  projectNotFound: () =>
    new AppError(404, 'project_not_found', 'No project was selected: send x-service-project-id with a project id.'),
  queryTimeout: () =>
    new AppError(503, 'query_timeout', 'The query took too long and was cancelled; try again or narrow it.'),
  internal: () => new AppError(500, 'internal_error', GENERIC_INTERNAL_MESSAGE),
};
