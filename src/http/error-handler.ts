import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStatementTimeout } from '../db/pool.ts';
import { AppError, GENERIC_INTERNAL_MESSAGE, errors } from './errors.ts';

export function errorBody(error: AppError, requestId: string) {
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      ...(error.details && error.details.length > 0 ? { details: error.details } : {}),
    },
  };
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  reply.header('x-request-id', reply.request.id);
  return reply.status(error.status).send(errorBody(error, String(reply.request.id)));
}

/** Maps framework failures to the spec's codes; anything unknown is a generic 500. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isStatementTimeout(error)) return errors.queryTimeout();
  const code = (error as FastifyError | undefined)?.code;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', 'The request body is larger than allowed.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(400, 'malformed_json', 'The body is not valid JSON.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // The URL is not quoted: it may be long and carry anything.
      return new AppError(414, 'parameter_too_long', 'A path parameter is longer than any id the API accepts.');
    case 'FST_ERR_BAD_URL':
      return new AppError(400, 'bad_url', 'The URL holds malformed percent-encoding.');
    default:
      return errors.internal();
  }
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request: FastifyRequest, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) {
      // The error's own text may hold SQL or values: log only its class and code.
      request.log.error(
        { err: { type: (error as Error)?.name, code: (error as FastifyError)?.code } },
        appError.code === 'query_timeout' ? 'statement timeout' : 'unexpected failure',
      );
    }
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.raw.url?.split('?')[0] ?? '/';
    return sendError(reply, errors.notFound(`Route ${request.method} ${path.slice(0, 300)} not found.`));
  });
}

export { GENERIC_INTERNAL_MESSAGE };
