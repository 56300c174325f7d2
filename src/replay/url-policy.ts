// Where a replay may go. A destination's base URL is an http(s) origin with an optional base
// path; a replay appends its relative path. Both are checked on the raw text, because the
// WHATWG URL parser silently resolves `..`, `%2e%2e`, backslashes and stray whitespace, which
// would let a "relative" path climb out of the base path or a base URL hide its real shape.

import { MAX_BASE_URL_LENGTH, MAX_REPLAY_PATH_LENGTH } from './limits.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });

/** Control characters, space, DEL, and the backslash that URL parsers read as a slash. */
const UNSAFE_CHARACTER = /[\u0000-\u0020\u007f\\]/;
const MALFORMED_ESCAPE = /%(?![0-9a-fA-F]{2})/;
/** `scheme:` before the first slash or query: an absolute URL (RFC 3986 section 3.1). */
const SCHEME_PREFIX = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/**
 * True when some segment is `.` or `..` as written, once decoded, or twice decoded (a proxy
 * that decodes once more must not see a traversal either). `;params` are ignored the way some
 * servers ignore them (`..;x` is `..` to Tomcat); `%2f` and `%5c` count as separators.
 */
export function hasDotSegment(path: string): boolean {
  const once = (text: string) => text.replace(/%2e/gi, '.').replace(/%2f/gi, '/').replace(/%5c/gi, '\\');
  const twice = once(path.replace(/%25/g, '%'));
  return [path, once(path), twice].some((text) =>
    text.split(/[/\\]/).some((segment) => {
      const bare = segment.split(';')[0];
      return bare === '.' || bare === '..';
    }),
  );
}

/**
 * The stored form of a base URL: scheme and host lower-cased, default port dropped, no
 * trailing slash. Refuses anything but an absolute http(s) origin with an optional path.
 */
export function normalizeBaseUrl(raw: string): Checked<string> {
  if (raw.length === 0) return fail('must not be empty');
  if (raw.length > MAX_BASE_URL_LENGTH) return fail(`must be at most ${MAX_BASE_URL_LENGTH} characters`);
  if (UNSAFE_CHARACTER.test(raw)) return fail('must not hold white space, control characters or backslashes');
  const scheme = /^(https?):\/\//i.exec(raw);
  if (scheme === null) return fail('must be an absolute http:// or https:// URL');
  if (raw.includes('?') || raw.includes('#')) return fail('must not hold a query string or fragment');
  const rest = raw.slice(scheme[0].length);
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash);
  if (authority.includes('@')) return fail('must not hold user information');
  if (authority === '') return fail('must name a host');
  if (MALFORMED_ESCAPE.test(path)) return fail('holds malformed percent-encoding');
  if (hasDotSegment(path)) return fail('must not hold . or .. path segments');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('is not a valid URL');
  }
  if (url.username !== '' || url.password !== '') return fail('must not hold user information');
  if (url.hostname === '') return fail('must name a host');
  const pathname = url.pathname.replace(/\/+$/, '');
  return { ok: true, value: `${url.protocol}//${url.host}${pathname}` };
}

/** A replay's relative path (query string allowed): refused when it could leave the base path. */
export function checkReplayPath(path: string): Checked<string> {
  if (path.length > MAX_REPLAY_PATH_LENGTH) return fail(`must be at most ${MAX_REPLAY_PATH_LENGTH} characters`);
  // Printable ASCII only: other characters must be percent-encoded to be sent at all.
  if (/[^\u0021-\u007e]/.test(path) || path.includes('\\')) {
    return fail('must be printable ASCII without spaces or backslashes; percent-encode other characters');
  }
  if (path.includes('#')) return fail('must not hold a fragment');
  if (path.startsWith('//')) return fail('must be relative, not a protocol-relative URL');
  const pathPart = path.split('?')[0]!;
  if (SCHEME_PREFIX.test(pathPart.split('/')[0]!)) return fail('must be relative, not an absolute URL');
  if (MALFORMED_ESCAPE.test(path)) return fail('holds malformed percent-encoding');
  if (hasDotSegment(pathPart)) return fail('must not hold . or .. path segments');
  return { ok: true, value: path };
}

/**
 * The URL a replay is sent to: base URL, then the path below it. Path '' is the base URL
 * itself; a leading slash is optional. Re-checked after parsing so nothing escapes the base.
 */
export function buildTargetUrl(baseUrl: string, path: string): URL {
  const at = path.indexOf('?');
  const pathPart = at === -1 ? path : path.slice(0, at);
  const query = at === -1 ? '' : path.slice(at);
  const relative = pathPart.startsWith('/') ? pathPart.slice(1) : pathPart;
  const base = new URL(baseUrl);
  const target = new URL(`${baseUrl}${pathPart === '' ? (base.pathname === '/' ? '/' : '') : `/${relative}`}${query}`);
  const basePath = base.pathname.replace(/\/+$/, '');
  if (target.origin !== base.origin || !(target.pathname === basePath || target.pathname.startsWith(`${basePath}/`))) {
    throw new Error('replay target escapes its base URL');
  }
  return target;
}

/** Exact host names, any port, case-insensitive; an IPv6 literal matches with or without brackets. */
export function isHostAllowed(hostname: string, allowed: readonly string[]): boolean {
  const bare = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const host = bare(hostname);
  return allowed.some((entry) => bare(entry.trim()) === host);
}
