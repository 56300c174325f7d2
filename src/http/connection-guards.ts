// Guards of the HTTP connection itself, before any route: what Node's server leaves open.
// docs/hostile-input.md, "Timeouts and connections", says why each exists.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';

/**
 * Node answers an HTTP/1.1 request without Host with a bare 400 and no body; the server is
 * created with `requireHostHeader: false` so that this hook answers it in the spec's error
 * shape, with a request id. HTTP/1.0 has no Host requirement. The connection is closed: a
 * client that omits Host is not one to keep talking to.
 */
export async function refuseMissingHost(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (request.headers.host !== undefined || request.raw.httpVersion !== '1.1') return;
  throw new AppError(400, 'bad_request', 'An HTTP/1.1 request must carry a Host header.', undefined, { connection: 'close' });
}
