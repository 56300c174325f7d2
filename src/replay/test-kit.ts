// Shared by the replay integration tests (not a test file itself): a real HTTP destination on
// 127.0.0.1 that records what reaches it, and helpers to ingest events and make destinations.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Keyring } from '../crypto/keyring.ts';
import { TEST_ADMIN_TOKEN, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type TargetHandler = (request: ReceivedRequest, response: ServerResponse) => void;

export interface Target {
  port: number;
  origin: string;
  requests: ReceivedRequest[];
  handle(handler: TargetHandler): void;
  close(): Promise<void>;
}

/** Answers JSON `{ ok: true }` until a test sets another handler. */
export async function startTarget(): Promise<Target> {
  const requests: ReceivedRequest[] = [];
  let handler: TargetHandler = (_request, response) => json(response, 200, { ok: true });
  const server = createServer((incoming: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      handler(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

export function admin(projectId: string): Record<string, string> {
  return { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': projectId };
}

/** Ingests one event through POST /v1/events/batch and returns its id. */
export async function ingestEvent(
  app: FastifyInstance,
  apiKey: string,
  payloads: { input?: unknown; output?: unknown },
  environment = 'production',
): Promise<string> {
  const id = `evt_${randomUUID()}`;
  const response = await app.inject({
    method: 'POST',
    url: '/v1/events/batch',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: {
      events: [
        {
          protocolVersion: '0.1',
          event: {
            id,
            journeyId: `jrn_${randomUUID()}`,
            environment,
            service: 'orders-api',
            entity: { type: 'order', id: 'ORD-1' },
            operation: 'transformed',
            name: 'map-order',
            timestamp: '2026-01-05T10:00:00.000Z',
            ...payloads,
          },
        },
      ],
    },
  });
  expect(response.statusCode, response.body).toBe(202);
  expect(response.json().data.results[0].status, response.body).toBe('accepted');
  return id;
}

export async function createDestinationVia(
  app: FastifyInstance,
  projectId: string,
  body: Record<string, unknown>,
): Promise<{ id: string; [key: string]: unknown }> {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/replay-destinations',
    headers: admin(projectId),
    payload: { name: 'local orders', environmentType: 'local', headers: {}, ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data;
}

export async function replay(app: FastifyInstance, projectId: string, body: unknown) {
  return app.inject({
    method: 'POST',
    url: '/v1/replays',
    headers: body === undefined ? admin(projectId) : { ...admin(projectId), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** A database, an app allowed to replay to 127.0.0.1, two seeded projects and a live target. */
export interface DestinationTestBed {
  db: TestDatabase;
  app: FastifyInstance;
  keyring: Keyring;
  acme: SeededProject;
  other: SeededProject;
  target: Target;
}

export async function openDestinationTestBed(): Promise<DestinationTestBed> {
  const db = await createTestDatabase();
  const built = await buildTestApp(db.pool, { config: { replayAllowedHosts: ['127.0.0.1'] } });
  const keyring = built.deps.keyring;
  return {
    db,
    app: built.app,
    keyring,
    acme: await seedProject(db.pool, keyring, 'acme'),
    other: await seedProject(db.pool, keyring, 'other'),
    target: await startTarget(),
  };
}

export async function closeDestinationTestBed(bed: Pick<DestinationTestBed, 'db' | 'app' | 'target'>): Promise<void> {
  await bed.app.close();
  await bed.target.close();
  await bed.db.drop();
}
