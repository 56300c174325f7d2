// Sends one replay request. The host name is resolved once and the connection is pinned to
// those addresses (the socket's lookup answers from them), so a name cannot answer differently
// between our resolution and the connect. TLS still verifies the certificate against the name.
// One deadline covers resolution, connect, response and body; redirects are never followed
// (a 3xx is just a response), so a destination cannot bounce a replay to another host.

import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { REPLAY_RESPONSE_READ_LIMIT_BYTES, REPLAY_TIMEOUT_MS } from './limits.ts';

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** Internal options: tests shorten the timeout or inject the resolver; no configuration reaches here. */
export interface SendOptions {
  timeoutMs?: number;
  resolve?: Resolver;
}

export interface ReplayRequest {
  url: URL;
  method: 'POST' | 'PUT' | 'PATCH';
  headers: Record<string, string>;
  body: string;
}

/** Stored as the run's `error`: stable words, never the error text of the socket or the peer. */
export type SendFailure =
  | 'timeout'
  | 'connection_refused'
  | 'connection_reset'
  | 'dns_lookup_failed'
  | 'tls_error'
  | 'response_too_large'
  | 'request_failed';

export type SendOutcome =
  | { kind: 'response'; status: number; body: Buffer; durationMs: number }
  | { kind: 'failed'; error: SendFailure; status: number | null; durationMs: number };

const defaultResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true });

/** A socket lookup that answers from the addresses resolved once, never from DNS again. */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname: string, options: LookupOptions, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = addresses.filter((entry) => family === 0 || entry.family === family);
    const first = usable[0];
    if (first === undefined) {
      callback(Object.assign(new Error('no pinned address for this family'), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

function errorCode(error: unknown): string {
  const own = (error as { code?: unknown } | null)?.code;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof own === 'string' ? own : typeof cause === 'string' ? cause : '';
}

function classify(error: unknown): SendFailure {
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA') return 'dns_lookup_failed';
  if (/TIMEOUT/.test(code)) return 'timeout';
  if (/CERT|SSL|TLS|SELF_SIGNED/.test(code)) return 'tls_error';
  return 'request_failed';
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export async function sendReplay(request: ReplayRequest, options: SendOptions = {}): Promise<SendOutcome> {
  const timeoutMs = options.timeoutMs ?? REPLAY_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  let client: Client | null = null;
  let status: number | null = null;
  const failed = (error: SendFailure): SendOutcome => ({ kind: 'failed', error, status, durationMs: elapsed() });
  try {
    const hostname = request.url.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: LookupAddress[] | null = null;
    if (isIP(hostname) === 0) {
      addresses = await untilAborted((options.resolve ?? defaultResolver)(hostname), controller.signal);
      if (addresses.length === 0) return failed('dns_lookup_failed');
    }
    client = new Client(request.url.origin, {
      connect: { timeout: timeoutMs, ...(addresses ? { lookup: pinnedLookup(addresses) } : {}) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const response = await client.request({
      path: `${request.url.pathname}${request.url.search}`,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    status = response.statusCode;
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > REPLAY_RESPONSE_READ_LIMIT_BYTES) {
      response.body.destroy();
      return failed('response_too_large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > REPLAY_RESPONSE_READ_LIMIT_BYTES) {
        response.body.destroy();
        return failed('response_too_large');
      }
      chunks.push(chunk as Buffer);
    }
    return { kind: 'response', status, body: Buffer.concat(chunks), durationMs: elapsed() };
  } catch (error) {
    return failed(timedOut ? 'timeout' : classify(error));
  } finally {
    clearTimeout(timer);
    if (client) await client.destroy().catch(() => {});
  }
}
