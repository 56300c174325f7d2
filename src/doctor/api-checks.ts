// The checks of `jtrace doctor` that talk to a running API over HTTP: `/ready`, and whether an
// API key authenticates. The key is sent only to the API being checked and never printed
// (its clear prefix names it, as key:list does).

import { parseApiKeyShape } from '../crypto/api-keys.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { describeError, type CheckResult } from './checks.ts';

/** How long doctor waits for the API before calling it unreachable. */
export const API_TIMEOUT_MS = 5000;

/** The URL to print: no user information, no query string. */
export function displayUrl(base: URL): string {
  return `${base.protocol}//${base.host}${base.pathname.replace(/\/$/, '')}`;
}

/** Where the API listens by HOST and PORT; a wildcard bind address is reached on loopback. */
export function defaultApiUrl(host: string, port: number): URL {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return new URL(`http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}/`);
}

function endpoint(base: URL, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/$/, '')}${path}`;
  url.username = '';
  url.password = '';
  return url;
}

async function readJson(response: Response): Promise<Record<string, unknown> | null> {
  try {
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function causeOf(error: unknown): string {
  // fetch wraps the socket error: its cause carries the code (ECONNREFUSED, ENOTFOUND, ...).
  if ((error as Error).name === 'TimeoutError') return `no answer within ${API_TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: unknown }).cause;
  return describeError(cause ?? error);
}

export async function checkApiReady(base: URL): Promise<CheckResult> {
  const shown = displayUrl(base);
  let response: Response;
  try {
    response = await fetch(endpoint(base, '/ready'), { signal: AbortSignal.timeout(API_TIMEOUT_MS) });
  } catch (error) {
    return {
      status: 'fail',
      check: 'api',
      detail: `${shown}/ready is unreachable (${causeOf(error)})`,
      fix: 'start the service, or pass --api-url with the address it listens on',
    };
  }
  const body = await readJson(response);
  const version = typeof body?.version === 'string' ? `version ${body.version}, source ${String(body.source)}` : 'no version';
  if (response.status === 200 && body?.status === 'ready') {
    return { status: 'ok', check: 'api', detail: `${shown} is ready (${version})` };
  }
  if (response.status === 503 && body?.status === 'not_ready') {
    const reason = typeof body.reason === 'string' ? body.reason : 'unknown';
    return {
      status: 'fail',
      check: 'api',
      detail: `${shown} is not ready: ${reason} (${version})`,
      fix: reason === 'migrations_pending' ? 'run jtrace migrate' : 'check the service log and its database',
    };
  }
  return {
    status: 'fail',
    check: 'api',
    detail: `${shown}/ready answered HTTP ${response.status}, not a jtrace readiness answer`,
    fix: 'point --api-url at the jtrace API (scheme, host and port)',
  };
}

/** A cheap authenticated read: the newest journey since now, so normally an empty page. */
export async function checkApiKey(base: URL, apiKey: string, now: number = Date.now()): Promise<CheckResult> {
  const prefix = parseApiKeyShape(apiKey);
  if (prefix === null) {
    return {
      status: 'fail',
      check: 'api-key',
      detail: 'the value given is not an API key (jtk_ followed by 32 characters)',
      fix: 'pass the key printed by jtrace key:create with --api-key or SERVICE_API_KEY',
    };
  }
  const url = endpoint(base, '/v1/journeys');
  url.search = new URLSearchParams({ since: formatTimestamp(now), limit: '1' }).toString();
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(API_TIMEOUT_MS) });
  } catch (error) {
    return { status: 'fail', check: 'api-key', detail: `the request failed (${causeOf(error)})`, fix: 'check that the API is up' };
  }
  const body = await readJson(response);
  if (response.status === 200) return { status: 'ok', check: 'api-key', detail: `${prefix}… authenticates` };
  const code = (body?.error as { code?: unknown } | undefined)?.code;
  const answer = `HTTP ${response.status}${typeof code === 'string' ? ` ${code}` : ''}`;
  if (response.status === 401) {
    return {
      status: 'fail',
      check: 'api-key',
      detail: `${prefix}… is refused (${answer})`,
      fix: 'a revoked key, or one whose encryption key is no longer configured, answers 401: check jtrace key:list and create a new key with jtrace key:create',
    };
  }
  if (response.status === 429) {
    return {
      status: 'fail',
      check: 'api-key',
      detail: `this address is throttled (${answer}) after refused credentials`,
      fix: `retry after ${response.headers.get('retry-after') ?? 'a few'} seconds with a valid key`,
    };
  }
  return { status: 'fail', check: 'api-key', detail: `${prefix}… got an unexpected answer (${answer})`, fix: 'check the service log' };
}
