// Single sign-on against a real OpenID provider (oidc-provider) started here: a first sign-in
// creates an allowed-domain account with the default role; a tampered state, a replayed code,
// a wrong nonce, an unverified e-mail, another domain and a locally disabled user are refused.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { flowKey, openFlow, sealFlow } from '../web/oidc-routes.ts';
import { keyring } from '../web/test-kit.ts';
import { makePerson } from './test-kit.ts';
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, type TestProvider } from './test-oidc-provider.ts';

const REDIRECT = 'http://localhost/ui/api/oidc/callback';
let db: TestDatabase;
let app: FastifyInstance;
let provider: TestProvider;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startTestProvider(REDIRECT);
  project = await seedProject(db.pool, keyring, 'sso-team');
  await seedProject(db.pool, keyring, 'sso-other');
  const oidc = { issuer: provider.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUrl: REDIRECT, allowedDomains: ['example.org'], defaultRole: 'viewer' as const, defaultProjects: ['sso-team'] };
  app = (await buildTestApp(db.pool, { keyring, config: { oidc } })).app;
  provider.accounts.set('alice', { email: 'alice@example.org', email_verified: true });
  provider.accounts.set('bob', { email: 'bob@example.org', email_verified: false });
  provider.accounts.set('carol', { email: 'carol@example.org', email_verified: true });
  provider.accounts.set('dave', { email: 'dave@elsewhere.net', email_verified: true });
});
afterAll(async () => {
  await app.close();
  await provider.close();
  await db.drop();
});

const cookieOf = (response: LightMyRequestResponse, name: string) => response.cookies.find((c) => c.name === name)?.value;

/** Starts at jtrace, signs in at the provider as the account; the flow cookie and the callback URL. */
async function throughProvider(accountId: string): Promise<{ flow: string; callback: URL }> {
  const start = await app.inject({ method: 'GET', url: '/ui/api/oidc/start' });
  expect(start.statusCode, start.body).toBe(302);
  const location = new URL(start.headers.location as string);
  expect(location.searchParams.get('code_challenge_method')).toBe('S256');
  provider.signInAs(accountId);
  return { flow: cookieOf(start, 'jtrace_oidc')!, callback: await provider.authorize(location.href) };
}

const callback = (url: URL, flow: string) => app.inject({ method: 'GET', url: url.pathname + url.search, cookies: { jtrace_oidc: flow } });

function expectRefused(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(302);
  expect(response.headers.location).toBe('/ui/sign-in?sso=refused');
  expect(cookieOf(response, 'jtrace_session')).toBeUndefined();
}

describe('single sign-on', () => {
  it('creates an allowed-domain account on first sign-in with the default role, and refuses a replayed code', async () => {
    const { flow, callback: url } = await throughProvider('alice');
    const signedIn = await callback(url, flow);
    expect(signedIn.statusCode, signedIn.body).toBe(302);
    expect(signedIn.headers.location).toBe('/ui/');
    const session = await app.inject({ method: 'GET', url: '/ui/api/session', cookies: { jtrace_session: cookieOf(signedIn, 'jtrace_session')! } });
    expect(session.json().data).toMatchObject({ signedInAs: 'user', user: { email: 'alice@example.org', owner: false }, projects: [{ projectId: project.projectId, slug: 'sso-team', role: 'viewer' }] });
    // The same code (and flow cookie) a second time: the provider refuses the code.
    expectRefused(await callback(url, flow));
    // A second sign-in finds the account rather than making another.
    const again = await throughProvider('alice');
    expect((await callback(again.callback, again.flow)).headers.location).toBe('/ui/');
    const users = await app.inject({ method: 'GET', url: '/v1/users', headers: bearer(TEST_ADMIN_TOKEN) });
    expect(users.json().data.items.filter((u: { email: string }) => u.email === 'alice@example.org')).toHaveLength(1);
  });

  it('refuses a tampered state and a wrong nonce', async () => {
    const tampered = await throughProvider('alice');
    tampered.callback.searchParams.set('state', 'not-the-state');
    expectRefused(await callback(tampered.callback, tampered.flow));

    const { flow, callback: url } = await throughProvider('alice');
    const key = flowKey(TEST_ADMIN_TOKEN);
    const opened = openFlow(key, flow, Date.now())!;
    expectRefused(await callback(url, sealFlow(key, { ...opened, nonce: 'another-nonce-0123456789' }, Date.now() + 60_000)));
    // Without the flow cookie (another browser) nothing signs in either.
    const other = await throughProvider('alice');
    expectRefused(await app.inject({ method: 'GET', url: other.callback.pathname + other.callback.search }));
  });

  it('refuses an unverified e-mail, another domain, and a user disabled locally', async () => {
    const bob = await throughProvider('bob');
    expectRefused(await callback(bob.callback, bob.flow));
    const dave = await throughProvider('dave');
    expectRefused(await callback(dave.callback, dave.flow));
    const carol = await makePerson(db.pool, {}, { email: 'carol@example.org' });
    await app.inject({ method: 'PATCH', url: `/v1/users/${carol.id}`, headers: bearer(TEST_ADMIN_TOKEN), payload: { state: 'disabled' } });
    const refused = await throughProvider('carol');
    expectRefused(await callback(refused.callback, refused.flow));
    const emails = (await app.inject({ method: 'GET', url: '/v1/users', headers: bearer(TEST_ADMIN_TOKEN) })).json().data.items.map((u: { email: string }) => u.email);
    expect(emails).not.toContain('bob@example.org');
    expect(emails).not.toContain('dave@elsewhere.net');
    const refusals = await db.pool.query(`SELECT count(*)::int AS n FROM account_audit_log WHERE action = 'session.sign_in_refused' AND details->>'method' = 'oidc'`);
    expect(refusals.rows[0].n).toBeGreaterThanOrEqual(6);
  });
});
