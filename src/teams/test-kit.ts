// Shared set-up of the teams integration tests (never part of the build): people are made as
// the CLI makes them, personal tokens and sessions through the HTTP routes.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { CLI_ACTOR } from '../audit/audit-log.ts';
import type { Role } from '../auth/policy.ts';
import type { Pool } from '../db/pool.ts';
import { createUser, grantRole } from './accounts.ts';

export const PASSWORD = 'a long and unusual passphrase';
const SAME_ORIGIN = { origin: 'http://localhost' };

export interface TestPerson {
  id: string;
  email: string;
}

let counter = 0;

/** An active person with PASSWORD, and the given roles. */
export async function makePerson(pool: Pool, roles: Record<string, Role> = {}, options: { owner?: boolean; email?: string } = {}): Promise<TestPerson> {
  counter += 1;
  const email = options.email ?? `person${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { user } = await createUser(pool, { email, password: PASSWORD, owner: options.owner === true }, CLI_ACTOR, Date.now());
  for (const [projectId, role] of Object.entries(roles)) await grantRole(pool, projectId, user.id, role, CLI_ACTOR);
  return { id: user.id, email: user.email };
}

let addressCounter = 0;
export function nextAddress(): string {
  addressCounter += 1;
  return `198.18.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

export function passwordSignIn(app: FastifyInstance, email: string, password: string, remoteAddress = nextAddress()) {
  return app.inject({ method: 'POST', url: '/ui/api/session/password', headers: SAME_ORIGIN, payload: { email, password }, remoteAddress });
}

/** Signs the person in; the `cookie` header of the session. */
export async function sessionOf(app: FastifyInstance, email: string): Promise<string> {
  const response = await passwordSignIn(app, email, PASSWORD);
  expect(response.statusCode, response.body).toBe(204);
  const cookie = response.cookies.find((c) => c.name === 'jtrace_session');
  return `jtrace_session=${cookie!.value}`;
}

/** A personal access token of the person, made through their session. */
export async function tokenOf(app: FastifyInstance, cookie: string, name = 'script'): Promise<{ id: string; secret: string }> {
  const response = await app.inject({ method: 'POST', url: '/ui/api/v1/me/tokens', headers: { cookie, ...SAME_ORIGIN }, payload: { name } });
  expect(response.statusCode, response.body).toBe(201);
  return { id: response.json().data.token.id, secret: response.json().data.secret };
}

export function expectCode(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json().error.code).toBe(code);
}

export { SAME_ORIGIN };
