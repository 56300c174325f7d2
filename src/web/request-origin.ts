// Which scheme and origin a request of the web interface was made to. Behind trusted proxies
// (TRUSTED_PROXY_COUNT > 0) the scheme comes from X-Forwarded-Proto, chosen the way the client
// address is chosen from X-Forwarded-For; the host is the Host header, which proxies keep.

import type { FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';

function forwardedProto(header: string | string[] | undefined, trustedProxyCount: number): string | null {
  if (header === undefined) return null;
  const entries = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (entries.length === 0) return null;
  return entries[Math.max(0, entries.length - trustedProxyCount)] ?? null;
}

export function requestIsHttps(request: FastifyRequest, trustedProxyCount: number): boolean {
  if ((request.raw.socket as Partial<TLSSocket>).encrypted === true) return true;
  if (trustedProxyCount < 1) return false;
  return forwardedProto(request.headers['x-forwarded-proto'], trustedProxyCount) === 'https';
}

/** The server's own origin as this request names it, normalised; null without a usable Host. */
export function ownOrigin(request: FastifyRequest, trustedProxyCount: number): string | null {
  const host = request.headers.host;
  if (host === undefined || host === '' || /[/\\@?#\s]/.test(host)) return null;
  try {
    return new URL(`${requestIsHttps(request, trustedProxyCount) ? 'https' : 'http'}://${host}`).origin;
  } catch {
    return null;
  }
}

/**
 * Whether the request's Origin header names exactly the server's own origin. Browsers send the
 * serialised origin (lower case, no default port, no path), so plain equality is the check.
 */
export function isSameOrigin(request: FastifyRequest, trustedProxyCount: number): boolean {
  const origin = request.headers.origin;
  const own = ownOrigin(request, trustedProxyCount);
  return typeof origin === 'string' && own !== null && origin === own;
}
