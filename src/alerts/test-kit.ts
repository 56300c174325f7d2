// Shared set-up of the dispatcher tests (not a test itself): two projects on one test database,
// real HTTP receivers on loopback (one that never answers, one that answers as told), rules made
// through the route, and findings stored by the real analyzer on the test's clock.

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { TEST_ADMIN_TOKEN, buildTestApp } from '../../test/helpers/app.ts';
import { createApiKey } from '../auth/api-key-service.ts';
import type { Pool } from '../db/pool.ts';
import type { Analyzer } from '../findings/analyzer.ts';
import { drainAll, quietAnalyzer } from '../findings/test-kit.ts';
import { contactJourney } from '../forensics/test-journeys.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { createProject } from '../projects/projects-sql.ts';
import { createReadFixture, envelope, keyring, type ReadFixture } from '../query/test-fixtures.ts';
import { startAlertDispatcher, type Dispatcher, type DispatcherDeps } from './dispatcher.ts';

export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  origin: string;
  received: Received[];
  /** Requests whose answer is still open (a receiver that never answers keeps them all). */
  open(): number;
  /** The most requests it ever held open at once. */
  maxOpen(): number;
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1; `answer` null never answers (the connection stays open). */
export async function startReceiver(answer: ((request: Received, response: ServerResponse) => void) | null): Promise<Receiver> {
  const received: Received[] = [];
  let open = 0;
  let maxOpen = 0;
  const server: Server = createServer((request, response) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    request.socket.once('close', () => open--);
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const entry = { at: performance.now(), path: request.url ?? '', headers: request.headers, body };
      received.push(entry);
      answer?.(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    open: () => open,
    maxOpen: () => maxOpen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

export interface AlertsFixture {
  fx: ReadFixture;
  /** An app that allows receivers on 127.0.0.1. */
  app: FastifyInstance;
  /** The second project: its id and an API key of its `production` environment. */
  other: { projectId: string; key: string };
  analyzer: Analyzer;
  setClock(ms: number): void;
  now(): number;
  close(): Promise<void>;
}

/** The fixture's clock starts near the real one, so that ingestion's retention takes the journeys stamped before it. */
export async function createAlertsFixture(): Promise<AlertsFixture> {
  let clock = Math.floor(Date.now() / 60_000) * 60_000 + 70_000;
  const now = () => clock;
  const fx = await createReadFixture(now);
  const project = await createProject(fx.db.pool, 'beta', 'Beta');
  const created = await createApiKey(fx.db.pool, keyring, { projectSlug: 'beta', environmentName: 'production', name: 'writer', defaultRetentionDays: 30 });
  const analyzer = quietAnalyzer(fx.db.pool, { now });
  const { app } = await buildTestApp(fx.db.pool, { keyring, now, config: { alertAllowedHosts: ['127.0.0.1'] } });
  return {
    fx,
    app,
    other: { projectId: project.id, key: created.apiKey },
    analyzer,
    setClock: (ms) => (clock = ms),
    now,
    async close() {
      await analyzer.stop();
      await app.close();
      await fx.close();
    },
  };
}

/** Makes a rule through the route: every lost phone, at least 1 in 1 minute. */
export async function createRule(a: AlertsFixture, projectId: string, name: string, url: string): Promise<{ id: string; secret: string }> {
  const response = await a.app.inject({
    method: 'POST',
    url: `/v1/projects/${projectId}/alert-rules`,
    headers: admin,
    payload: JSON.stringify({ name, kind: 'lost', path: 'customer.phone', channel: { type: 'webhook', url } }),
  });
  expect(response.statusCode, response.body).toBe(201);
  const rule = response.json().data as { id: string; secret: string };
  // Made now by the test's clock, not the database's: its first window is the clock's.
  await a.fx.db.pool.query('UPDATE alert_rules SET created_at = $2 WHERE id = $1', [rule.id, new Date(a.now())]);
  return rule;
}

export async function deleteRule(a: AlertsFixture, projectId: string, ruleId: string): Promise<void> {
  const response = await a.app.inject({ method: 'DELETE', url: `/v1/projects/${projectId}/alert-rules/${ruleId}`, headers: { authorization: admin.authorization } });
  expect(response.statusCode, response.body).toBeLessThan(300);
}

/** Stores a journey with a lost phone in a project (the fixture's own, or `other`) and analyses it now. */
export async function loseAPhone(a: AlertsFixture, project: 'own' | 'other', journeyId: string): Promise<void> {
  const key = project === 'own' ? a.fx.keys.production : a.other.key;
  const response = await a.app.inject({
    method: 'POST',
    url: '/v1/events/batch',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ events: contactJourney(journeyId, 'lost', new Date(a.now() - 600_000).toISOString()).map((event) => envelope(event, 'production')) }),
  });
  expect(response.statusCode, response.body.slice(0, 300)).toBe(202);
  await drainAll(a.analyzer, a.fx.db.pool);
}

export function dispatcherOn(pool: Pool, a: AlertsFixture, extra: Partial<DispatcherDeps> = {}): Dispatcher {
  return startAlertDispatcher({
    pool, keyring, logger: pino({ level: 'silent' }), metrics: createMetrics(), allowedHosts: ['127.0.0.1'], version: 'test',
    now: a.now, intervalMs: 3_600_000, backoffBaseMs: 1_000, ...extra,
  });
}

/** Waits until `check` holds, polling, for at most `ms`; returns whether it held. */
export async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (!check()) {
    if (performance.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** The notifications a receiver got, as `notification windowStart count` lines. */
export function notifications(receiver: Receiver, path?: string): string[] {
  return receiver.received
    .filter((r) => path === undefined || r.path === path)
    .map((r) => JSON.parse(r.body) as { notification: string; windowStart: string; count: number })
    .map((n) => `${n.notification} ${n.windowStart} ${n.count}`);
}
