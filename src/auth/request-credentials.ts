// What a request presents as its credential, read the same way on every route: the bearer
// token, the client address and its throttle key, the admin token's sign-in and the lock that
// refuses a locked address before its body is read.
import type { FastifyRequest } from 'fastify';
import { adminTokenMatches } from '../crypto/admin-token.ts';
import { resolveClientAddress, throttleKey } from '../http/client-address.ts';
import { AppError, errors } from '../http/errors.ts';
import type { AuthContext } from './credentials.ts';

/** The client address as the request log and the audit trail name it. */
export function requestClientAddress(request: FastifyRequest, ctx: Pick<AuthContext, 'trustedProxyCount'>): string {
  return resolveClientAddress(request.raw.socket?.remoteAddress ?? '', headerValue(request.headers['x-forwarded-for']), ctx.trustedProxyCount);
}

/**
 * `Bearer <token>`: scheme in any case, exactly one space, then the token with nothing after
 * it (a trailing space included). Returns null for a missing header, '' for a malformed one.
 */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^bearer ([^\s]+)$/i.exec(header);
  return match ? match[1]! : '';
}

/**
 * The request's bearer token as bearerToken reads it. Node keeps only the first of repeated
 * Authorization headers; a request carrying several is refused as malformed ('') instead of
 * being judged by whichever a proxy or the parser happened to keep.
 */
export function requestBearerToken(request: FastifyRequest): string | null {
  const raw = request.raw?.rawHeaders ?? [];
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') count++;
  return count > 1 ? '' : bearerToken(request.headers.authorization);
}

export function requestThrottleKey(request: FastifyRequest, ctx: AuthContext): string {
  const address = resolveClientAddress(
    request.raw.socket.remoteAddress ?? '',
    headerValue(request.headers['x-forwarded-for']),
    ctx.trustedProxyCount,
  );
  return throttleKey(address);
}

export function tooManyAttempts(retryAfterSeconds: number): AppError {
  return new AppError('too_many_attempts', 'Too many refused credentials from this address; wait and retry.', undefined, {
    'retry-after': String(retryAfterSeconds),
  });
}

/**
 * The web interface's sign-in: the admin token presented in a body, under the same per-address
 * lock as the admin token in a header (checked first; a refusal is counted).
 */
export function checkAdminSignIn(request: FastifyRequest, ctx: AuthContext, token: string): void {
  const key = requestThrottleKey(request, ctx);
  const state = ctx.throttle.check(key, ctx.now());
  if (state.locked) throw tooManyAttempts(state.retryAfterSeconds);
  if (adminTokenMatches(ctx.adminToken, token)) return;
  ctx.throttle.recordFailure(key, ctx.now());
  throw errors.unauthorized();
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * onRequest hook of routes that take a credential in their body (sign-in): a locked address is
 * refused with 429 before the body is read, so a lock also spares the parsing.
 */
export function lockedAddressBeforeBody(ctx: AuthContext) {
  return async (request: FastifyRequest) => {
    const state = ctx.throttle.check(requestThrottleKey(request, ctx), ctx.now());
    if (state.locked) throw tooManyAttempts(state.retryAfterSeconds);
  };
}
