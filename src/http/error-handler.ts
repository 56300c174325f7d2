import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isStatementTimeout } from '../db/pool.ts';
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
  if (isDatabaseUnavailable(error)) return errors.databaseUnavailable();
  const code = (error as FastifyError | undefined)?.code;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'payload_too_large', 'The request body is larger than allowed.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(400, 'malformed_json', 'The body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(400, 'bad_request', 'The body length does not match Content-Length.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // The URL is not quoted: it may be long and carry anything.
      return new AppError(414, 'parameter_too_long', 'A path parameter is longer than any id the API accepts.');
    case 'FST_ERR_BAD_URL':
      return new AppError(400, 'bad_url', 'The URL holds malformed percent-encoding.');
    default:
      return errors.internal();
  }
}

/**
 * What a log line may say of an unexpected error: its class, its code and the stack's frames
 * (file and line). Never the message: it can hold SQL, values or secrets. The stack's first
 * lines repeat the message, so only `at` frames are kept.
 */
export function describeError(error: unknown): { type: string; code?: string; stack?: string[] } {
  if (typeof error !== 'object' || error === null) return { type: typeof error };
  const { name, code, stack } = error as { name?: unknown; code?: unknown; stack?: unknown };
  const frames = typeof stack === 'string' ? stack.split('\n').filter((line) => /^\s+at /.test(line)).map((line) => line.trim()) : [];
  return {
    type: typeof name === 'string' ? name : (error.constructor?.name ?? 'Object'),
    ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
    ...(frames.length > 0 ? { stack: frames } : {}),
  };
}

/** The client went away mid-request (an aborted upload): its problem, not the server's. */
function isClientAbort(error: unknown, request: FastifyRequest): boolean {
  if (error instanceof AppError) return false;
  // A database connection reset (ECONNRESET from pg) while the client is still connected is the
  // database's failure, answered 503, not the client's.
  if (isDatabaseUnavailable(error) && request.raw.socket?.destroyed === false) return false;
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'ECONNABORTED' || (request.raw.destroyed && !request.raw.complete);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request: FastifyRequest, reply) => {
    if (isClientAbort(error, request)) {
      // Anyone can abort uploads at will: never at error level, where it would flood the log.
      request.log.debug({ err: { type: (error as Error)?.name, code: (error as FastifyError)?.code } }, 'client aborted the request');
      return sendError(reply, new AppError(400, 'bad_request', 'The request was aborted.'));
    }
    const appError = toAppError(error);
    if (appError.code === 'database_unavailable') {
      request.log.warn({ err: describeError(error) }, 'database unavailable');
    } else if (appError.code === 'key_superseded') {
      request.log.warn('refused: ENCRYPTION_KEY has been replaced by a newer key; restart with the new key');
    } else if (appError.status >= 500) {
      request.log.error({ err: describeError(error) }, appError.code === 'query_timeout' ? 'statement timeout' : 'unexpected failure');
    }
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.raw.url?.split('?')[0] ?? '/';
    return sendError(reply, errors.notFound(`Route ${request.method} ${path.slice(0, 300)} not found.`));
  });
}

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (Transfer-Encoding with
 * Content-Length, a raw 0xff byte in the URL, stalled headers or body): they get the spec's
 * error body too. Oversized headers stay a bare 431 (event protocol 1.2).
 */
export function clientErrorHandler(logger: FastifyBaseLogger, onRefusal: (status: number) => void) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) {
      logger.debug({ err: { type: error.name, code: error.code } }, 'client closed the connection');
      return;
    }
    let appError: AppError | null;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      appError = new AppError(408, 'request_timeout', 'The request was not received in time.');
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      appError = null;
    } else if (error.code === 'HPE_INVALID_URL') {
      appError = new AppError(400, 'bad_url', 'The URL is not valid.');
    } else {
      appError = new AppError(400, 'bad_request', 'The request is not valid HTTP.');
    }
    const status = appError?.status ?? 431;
    logger.debug({ err: { type: error.name, code: error.code }, status }, 'request refused by the HTTP parser');
    onRefusal(status);
    if (socket.writable) {
      const requestId = randomUUID();
      const body = appError ? JSON.stringify(errorBody(appError, requestId)) : '';
      const type = appError ? 'Content-Type: application/json; charset=utf-8\r\n' : '';
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n${type}x-request-id: ${requestId}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}

export { GENERIC_INTERNAL_MESSAGE };
