// Shared set-up of the web interface's integration tests (never part of the build).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type TestAppOptions } from '../../test/helpers/app.ts';
import type { TestDatabase } from '../../test/helpers/database.ts';

export const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
/** What light-my-request's default Host (localhost:80) makes the server's own origin. */
export const OWN_ORIGIN = 'http://localhost';
export const SAME_ORIGIN = { origin: OWN_ORIGIN };

export function clock(start: number) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

let addressCounter = 0;
/** A benchmark-range address no other test uses, so throttle counts never mix. */
export function uniqueAddress(): string {
  addressCounter += 1;
  return `198.19.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

export async function webApp(db: TestDatabase, options: TestAppOptions = {}): Promise<FastifyInstance> {
  return (await buildTestApp(db.pool, { keyring, ...options })).app;
}

export function signInRequest(app: FastifyInstance, token: string, extra: { headers?: Record<string, string>; remoteAddress?: string } = {}) {
  return app.inject({
    method: 'POST',
    url: '/ui/api/session',
    headers: { ...SAME_ORIGIN, ...extra.headers },
    payload: { token },
    remoteAddress: extra.remoteAddress ?? uniqueAddress(),
  });
}

/** Signs in with the admin token and returns the `cookie` header that carries the session. */
export async function signIn(app: FastifyInstance, token = TEST_ADMIN_TOKEN): Promise<string> {
  const response = await signInRequest(app, token);
  expect(response.statusCode).toBe(204);
  return cookieHeader(response);
}

export function cookieHeader(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((c) => c.name === 'jtrace_session');
  expect(cookie).toBeDefined();
  return `jtrace_session=${cookie!.value}`;
}

export function expectError(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json().error.code).toBe(code);
}

/** A project with an API key, and events sent through the real ingestion route. */
export async function seedWithEvents(app: FastifyInstance, db: TestDatabase, slug: string, events: Record<string, unknown>[]) {
  const project = await seedProject(db.pool, keyring, slug);
  for (const event of events) {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: bearer(project.apiKey),
      payload: { protocolVersion: '0.1', event: { environment: 'production', ...event } },
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
  }
  return project;
}
