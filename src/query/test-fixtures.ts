// Shared set-up of the read-route integration tests (not a test itself): a test database, an
// app on a fixed clock, a project with two environments and their API keys, and a way to ingest
// events through the real batch route so that what the reads see is what ingestion stored.

import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createApiKey } from '../auth/api-key-service.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createProject } from '../projects/projects-sql.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, buildTestApp } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';

export const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
/** The API clock of every read test: events are stamped before it. */
export const NOW_MS = Date.parse('2026-03-01T12:00:00.000Z');

export interface EventInput {
  id: string;
  journeyId: string;
  timestamp: string;
  environment?: string;
  service?: string;
  entity?: { type: string; id: string };
  operation?: string;
  name?: string;
  [field: string]: unknown;
}

export interface ReadFixture {
  db: TestDatabase;
  app: FastifyInstance;
  projectId: string;
  /** API keys by environment name. */
  keys: Record<string, string>;
  close(): Promise<void>;
}

/** A fresh database with project `acme` and API keys for `production` and `staging`. */
export async function createReadFixture(now: () => number = () => NOW_MS): Promise<ReadFixture> {
  const db = await createTestDatabase();
  const { app } = await buildTestApp(db.pool, { keyring, now });
  const project = await createProject(db.pool, 'acme', 'Acme');
  const keys: Record<string, string> = {};
  for (const environment of ['production', 'staging']) {
    const created = await createApiKey(db.pool, keyring, { projectSlug: 'acme', environmentName: environment, name: 'reader', defaultRetentionDays: 30 });
    keys[environment] = created.apiKey;
  }
  return {
    db,
    app,
    projectId: project.id,
    keys,
    async close() {
      await app.close();
      await db.drop();
    },
  };
}

export function envelope(input: EventInput, environment: string) {
  return {
    protocolVersion: '0.1',
    event: {
      environment,
      service: 'checkout',
      entity: { type: 'order', id: `entity-${input.journeyId}` },
      operation: 'received',
      name: 'receive-order',
      ...input,
    },
  };
}

/** Sends events through POST /v1/events/batch (100 at a time) and requires every one accepted. */
export async function ingest(fixture: ReadFixture, environment: string, events: EventInput[]): Promise<void> {
  for (let start = 0; start < events.length; start += 100) {
    const chunk = events.slice(start, start + 100).map((event) => envelope(event, event.environment ?? environment));
    const response = await fixture.app.inject({
      method: 'POST',
      url: '/v1/events/batch',
      headers: { authorization: `Bearer ${fixture.keys[environment]}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ events: chunk }),
    });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(202);
    for (const result of response.json().data.results) expect(result.status, JSON.stringify(result)).toBe('accepted');
  }
}

export type Credential = { kind: 'api-key'; environment: string } | { kind: 'admin'; projectHeader?: string | null };

/** Headers of a credential; the admin token names the fixture's project unless told otherwise. */
export function credentialHeaders(fixture: ReadFixture, credential: Credential): Record<string, string> {
  if (credential.kind === 'api-key') return { authorization: `Bearer ${fixture.keys[credential.environment]}` };
  const header = credential.projectHeader === undefined ? fixture.projectId : credential.projectHeader;
  return { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(header === null ? {} : { 'x-service-project-id': header }) };
}

/** Builds a URL with the query parameters given in order (a repeated name appears twice). */
export function urlWith(path: string, params: Array<[string, string]> = []): string {
  if (params.length === 0) return path;
  return `${path}?${params.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')}`;
}

export async function get(
  fixture: ReadFixture,
  credential: Credential,
  url: string,
  extra: Partial<InjectOptions> = {},
): Promise<LightMyRequestResponse> {
  return fixture.app.inject({ method: 'GET', url, headers: credentialHeaders(fixture, credential), ...extra });
}

/** The error code of a refused request, after checking its status. */
export function refusal(response: LightMyRequestResponse, status: number): string {
  expect(response.statusCode, response.body.slice(0, 300)).toBe(status);
  return (response.json() as { error: { code: string } }).error.code;
}

export const API_KEY: Credential = { kind: 'api-key', environment: 'production' };
export const ADMIN: Credential = { kind: 'admin' };
/** Both credentials a read route accepts, for it.each. */
export const READERS: Array<[string, Credential]> = [
  ['API key', API_KEY],
  ['admin token', ADMIN],
];
