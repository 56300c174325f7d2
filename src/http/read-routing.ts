import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/pool.ts';
import type { ReadReplica } from '../db/read-replica.ts';

/**
 * The database a read that tolerates a little staleness uses for one request (search, the journey
 * list, the activity chart, the findings summary, the audit log; docs/deployment.md, "Read
 * replicas"). Every other read stays on the primary.
 */
export type StaleReads = (request: FastifyRequest) => Queryable;

/**
 * Set on the answer to a write, so that the same browser or client reads from the primary for a
 * moment afterwards (its own change may not have reached the replica). The value is the expiry in
 * ms since the epoch; it is not signed because a forged one can only send its bearer's own reads to
 * the primary, which a write would too. The server never honours one longer than the window.
 */
export const FRESH_WRITE_COOKIE = 'jtrace_fresh_write';

/** Margin above the lag bound, in ms: the lag is measured every few hundred ms. */
const FRESH_WRITE_MARGIN_MS = 2000;

// Ingestion is the SDKs' traffic, whose writes are what the lag bound already tolerates.
const INGEST_ROUTES = new Set(['/v1/events', '/v1/events/batch', '/v1/traces', '/v1/logs']);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True when the request carries an unexpired fresh-write cookie no longer than the window. */
export function hasFreshWrite(cookieHeader: string | undefined, now: number, windowMs: number): boolean {
  if (cookieHeader === undefined) return false;
  for (const part of cookieHeader.split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name !== FRESH_WRITE_COOKIE || value === undefined || !/^\d{1,16}$/.test(value)) continue;
    const until = Number(value);
    if (until > now && until <= now + windowMs) return true;
  }
  return false;
}

/**
 * Routes stale-tolerant reads to the replica while it is in sync, except for a requester who wrote
 * within the window (the cookie works across instances: any of them reads it).
 */
export function registerReadRouting(app: FastifyInstance, deps: { replica: ReadReplica; maxLagMs: number; now: () => number }): StaleReads {
  const windowMs = deps.maxLagMs + FRESH_WRITE_MARGIN_MS;
  app.addHook('onSend', async (request, reply, payload) => {
    if (!WRITE_METHODS.has(request.method) || reply.statusCode >= 400) return payload;
    const route = request.routeOptions.url;
    if (route === undefined || INGEST_ROUTES.has(route)) return payload;
    const until = deps.now() + windowMs;
    reply.header('set-cookie', [
      ...setCookies(reply.getHeader('set-cookie')),
      `${FRESH_WRITE_COOKIE}=${until}; Path=/; Max-Age=${Math.ceil(windowMs / 1000)}; HttpOnly; SameSite=Lax`,
    ]);
    return payload;
  });
  return (request) => deps.replica.reader({ freshWrite: hasFreshWrite(request.headers.cookie, deps.now(), windowMs) });
}

function setCookies(value: ReturnType<import('fastify').FastifyReply['getHeader']>): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}
