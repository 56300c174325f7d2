// The sender's limits through the capability function, which takes the internal options the
// route never passes: a shorter timeout and an injected resolver.

import type { LookupAddress } from 'node:dns';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import type { AppDeps } from '../app.ts';
import { REPLAY_RESPONSE_READ_LIMIT_BYTES } from './limits.ts';
import { createReplay, type ReplayDeps } from './replays.ts';
import type { Resolver } from './sender.ts';
import { createDestinationVia, ingestEvent, json, startTarget, type Target } from './test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;
let appDeps: AppDeps;
let target: Target;
let acme: SeededProject;
let eventId: string;

function replayDeps(allowedHosts: string[]): ReplayDeps {
  return { pool: db.pool, keyring: appDeps.keyring, allowedHosts, version: '9.9.9', now: Date.now };
}

async function destination(baseUrl: string, headers: Record<string, string> = {}): Promise<string> {
  return (await createDestinationVia(app, acme.projectId, { baseUrl, headers })).id;
}

/** A resolver that answers 127.0.0.1 for any name and counts what it was asked. */
function countingResolver(): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    return [{ address: '127.0.0.1', family: 4 }];
  };
  return Object.assign(resolve, { calls });
}

beforeAll(async () => {
  db = await createTestDatabase();
  const built = await buildTestApp(db.pool);
  app = built.app;
  appDeps = built.deps;
  acme = await seedProject(db.pool, appDeps.keyring, 'acme');
  target = await startTarget();
  eventId = await ingestEvent(app, acme.apiKey, { input: { a: 1 }, output: { a: 1 } });
});
afterAll(async () => {
  await app.close();
  await target.close();
  await db.drop();
});
beforeEach(() => {
  target.requests.length = 0;
  target.handle((_request, response) => json(response, 200, { a: 1 }));
});

describe('timeout', () => {
  it('fails a destination that answers too slowly, with error timeout', async () => {
    target.handle((_request, response) => {
      setTimeout(() => json(response, 200, { late: true }), 1_500).unref();
    });
    const id = await destination(target.origin);
    const run = await createReplay(replayDeps(['127.0.0.1']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/slow' }, { timeoutMs: 300 });
    expect(run).toMatchObject({ status: 'failed', error: 'timeout', responsePayload: null, comparison: null });
    expect(run.durationMs).toBeGreaterThanOrEqual(290);
    expect(run.durationMs).toBeLessThan(1_500);
    expect(target.requests).toHaveLength(1);
  });

  it('fails a body that stalls after the headers', async () => {
    target.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"a":');
    });
    const id = await destination(target.origin);
    const run = await createReplay(replayDeps(['127.0.0.1']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/' }, { timeoutMs: 300 });
    expect(run).toMatchObject({ status: 'failed', error: 'timeout', responseStatus: 200, responsePayload: null });
  });
});

describe('response read limit', () => {
  const big = 'x'.repeat(REPLAY_RESPONSE_READ_LIMIT_BYTES + 1);

  it('fails a response over 256 KiB sent in chunks without a length', async () => {
    target.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < big.length; i += 16_384) response.write(big.slice(i, i + 16_384));
      response.end();
    });
    const id = await destination(target.origin);
    const run = await createReplay(replayDeps(['127.0.0.1']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/' });
    expect(run).toMatchObject({ status: 'failed', error: 'response_too_large', responseStatus: 200, responsePayload: null, comparison: null });
  });

  it('fails a response whose declared length is over 256 KiB', async () => {
    target.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(big.length) });
      response.end(big);
    });
    const id = await destination(target.origin);
    const run = await createReplay(replayDeps(['127.0.0.1']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/' });
    expect(run).toMatchObject({ status: 'failed', error: 'response_too_large' });
  });

  it('reads a response of exactly 256 KiB', async () => {
    const exact = JSON.stringify('y'.repeat(REPLAY_RESPONSE_READ_LIMIT_BYTES - 2));
    target.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(exact);
    });
    const id = await destination(target.origin);
    const run = await createReplay(replayDeps(['127.0.0.1']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/' });
    expect(run.status).toBe('completed');
    expect((run.responsePayload as string).length).toBe(REPLAY_RESPONSE_READ_LIMIT_BYTES - 2);
  });
});

describe('pinned resolution', () => {
  it('resolves localhost once and connects to the address it gave', async () => {
    const resolver = countingResolver();
    const id = await destination(`http://localhost:${target.port}/api`);
    const run = await createReplay(replayDeps(['localhost']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/x' }, { resolve: resolver });
    expect(run.status).toBe('completed');
    expect(resolver.calls).toEqual(['localhost']);
    expect(target.requests).toHaveLength(1);
    expect(target.requests[0]!.headers.host).toBe(`localhost:${target.port}`);
    expect(target.requests[0]!.headers['user-agent']).toBe('jtrace-replay/9.9.9');
  });

  it('reaches a name no DNS knows only through the pinned address', async () => {
    const resolver = countingResolver();
    const id = await destination(`http://replay-target.invalid:${target.port}`);
    const run = await createReplay(replayDeps(['replay-target.invalid']), acme.projectId, { eventId, destinationId: id, method: 'PUT', path: '/' }, { resolve: resolver });
    expect(run).toMatchObject({ status: 'completed', responseStatus: 200, comparison: [] });
    expect(resolver.calls).toEqual(['replay-target.invalid']);
    expect(target.requests[0]!.headers.host).toBe(`replay-target.invalid:${target.port}`);
  });

  it('records a name that does not resolve as failed, and never resolves a blocked host', async () => {
    const id = await destination(`http://nowhere.invalid:${target.port}`);
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const run = await createReplay(replayDeps(['nowhere.invalid']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/' }, { resolve: failing });
    expect(run).toMatchObject({ status: 'failed', error: 'dns_lookup_failed' });

    const resolver = countingResolver();
    const blocked = await createReplay(replayDeps(['localhost']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/' }, { resolve: resolver });
    expect(blocked).toMatchObject({ status: 'blocked', error: 'host_not_allowed' });
    expect(resolver.calls).toEqual([]);
    expect(target.requests).toHaveLength(0);
  });

  it('does not follow a redirect to another host', async () => {
    target.handle((_request, response) => {
      response.writeHead(302, { location: 'http://elsewhere.invalid/steal' });
      response.end();
    });
    const id = await destination(target.origin);
    const run = await createReplay(replayDeps(['127.0.0.1']), acme.projectId, { eventId, destinationId: id, method: 'POST', path: '/' });
    expect(run).toMatchObject({ status: 'completed', responseStatus: 302, responsePayload: null });
    expect(target.requests).toHaveLength(1);
  });
});
