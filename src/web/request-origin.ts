// Which scheme and origin a request of the web interface was made to. Behind trusted proxies
// (TRUSTED_PROXY_COUNT > 0) the scheme comes from X-Forwarded-Proto, chosen the way the client
// address is chosen from X-Forwarded-For; the host is the Host header, which proxies keep.

import net from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';
import { isLoopbackHost } from '../runtime/loopback.ts';

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

/** Which origins may change state through the interface (docs/web-interface.md, "Origin check"). */
export interface OriginPolicy {
  /** PUBLIC_URL's origin; null when unset. */
  publicOrigin: string | null;
  /** Embedded mode: beside PUBLIC_URL, the server's own origin when its host is loopback. */
  embedded: boolean;
  trustedProxyCount: number;
}

/**
 * A host a DNS-rebinding page cannot name: an IP address or localhost. After a rebinding the
 * browser sends the attacker's name as Host, and the page's Origin matches it.
 */
function cannotBeRebound(hostname: string): boolean {
  return hostname === 'localhost' || net.isIP(hostname.replace(/^\[|\]$/g, '')) !== 0;
}

/**
 * Whether the request's Origin header is one the interface accepts. Browsers send the
 * serialised origin (lower case, no default port, no path), so plain equality is the check.
 * With PUBLIC_URL: its origin only (and in embedded mode also the loopback origin the request
 * was made to). Without: the origin the Host header names, when that host is an IP address or
 * localhost; a name needs PUBLIC_URL.
 */
export function isAllowedOrigin(request: FastifyRequest, policy: OriginPolicy): boolean {
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return false;
  if (policy.publicOrigin !== null && origin === policy.publicOrigin) return true;
  const own = ownOrigin(request, policy.trustedProxyCount);
  if (own === null || origin !== own) return false;
  const hostname = new URL(own).hostname;
  return policy.publicOrigin === null ? cannotBeRebound(hostname) : policy.embedded && isLoopbackHost(hostname);
}
