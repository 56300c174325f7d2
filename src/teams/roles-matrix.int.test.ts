// Each role against each route (docs/roles.md): every route of buildApp has a rule, and a
// person with a role below it is refused with 403 forbidden, without a role in the project
// with 404 project_not_found exactly as an unknown project, at or above it never refused.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../auth/api-key-service.ts';
import { ACTION_ROUTES, ACTIONS, ROLES, ruleOf, type Role, type RouteRule } from '../auth/policy.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { registeredRoutes } from '../http/route-contract.ts';
import { TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { SAME_ORIGIN, makePerson, sessionOf, tokenOf, type TestPerson } from './test-kit.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;
let target: TestPerson;
type Who = Role | 'none' | 'owner';
const spareKeys: string[] = [];
const credentials = new Map<Who, { token: string; cookie: string }>();

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring, config: { otlpEnabled: true } })).app;
  project = await seedProject(db.pool, keyring, 'matrix');
  await seedProject(db.pool, keyring, 'matrix-other');
  target = await makePerson(db.pool);
  // One active key of the project per revocation the matrix makes, so each is judged on a live key.
  for (let i = 0; i < 12; i++) spareKeys.push((await createApiKey(db.pool, keyring, { projectSlug: 'matrix', environmentName: 'production', name: `spare ${i}`, defaultRetentionDays: 30 })).keyPrefix);
  for (const who of [...ROLES, 'none', 'owner'] as const) {
    const roles = ROLES.includes(who as Role) ? { [project.projectId]: who as Role } : {};
    const person = await makePerson(db.pool, roles, { owner: who === 'owner' });
    const cookie = await sessionOf(app, person.email);
    credentials.set(who, { token: (await tokenOf(app, cookie)).secret, cookie });
  }
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

/** A request each route can act on without failing its input checks first. */
function sample(method: string, url: string): { url: string; payload?: Record<string, unknown> } {
  const path = url
    .replace(':journeyId', 'j-none')
    .replace(':eventId', 'e-none')
    .replace(':projectId', project.projectId)
    .replace(':userId', target.id)
    .replace(':prefix', () => spareKeys.pop()!)
    .replace(':name', 'production')
    .replace(/:[a-zA-Z]+Id/, randomUUID());
  const payloads: Record<string, Record<string, unknown>> = {
    'POST /v1/erasures': { value: 'someone', dryRun: true },
    'POST /v1/replays': { eventId: 'e-none', destinationId: randomUUID(), path: '/x' },
    'POST /v1/replays/preview': { eventId: 'e-none', destinationId: randomUUID(), path: '/x' },
    'POST /v1/replay-destinations': { name: `d-${randomUUID()}`, baseUrl: 'http://localhost:9', environmentType: 'test', headers: {} },
    'PUT /v1/projects/:projectId/members/:userId': { role: 'viewer' },
    'POST /v1/projects/:projectId/expectations/:entityType/preview': { steps: [{ name: 'receive' }], finalStep: 'receive' },
    'POST /v1/users': { email: `new-${randomUUID()}@example.com` },
    'PATCH /v1/users/:userId': { name: 'Renamed' },
    'POST /v1/me/tokens': { name: 'another' },
    'POST /v1/projects/:projectId/api-keys': { name: 'matrix key', environment: 'production' },
    'POST /v1/projects/:projectId/invitations': { email: `invited-${randomUUID()}@example.com`, role: 'viewer' },
    'POST /v1/projects': { slug: `p-${randomUUID()}`, name: 'Another' },
    'PATCH /v1/projects/:projectId': { name: 'Matrix' },
    'PATCH /v1/projects/:projectId/problems/:problemId': { status: 'resolved' },
    'POST /v1/projects/:projectId/problems/:problemId/replays': { destinationId: randomUUID() },
    'POST /v1/projects/:projectId/environments': { name: `e-${randomUUID()}` },
    'PATCH /v1/projects/:projectId/environments/:name': { retentionDays: 30 },
    // Its own name: the rename is allowed and leaves the environment the other routes use.
    'POST /v1/projects/:projectId/environments/:name/rename': { name: 'production' },
    'POST /v1/projects/:projectId/environments/:name/capture-preview': { settings: { captureMode: 'metadata-only', redactionPaths: [], captureAllowlist: [] }, envelope: {} },
  };
  const key = `${method} ${url.replace('/ui/api/v1/', '/v1/')}`;
  const query = key === 'GET /v1/search' ? '?q=x' : key === 'GET /v1/journeys' || key === 'GET /v1/journeys/activity' ? '?since=2026-01-01T00:00:00Z' : '';
  return { url: path + query, ...(payloads[key] !== undefined ? { payload: payloads[key] } : {}) };
}

function expected(rule: RouteRule, who: Who): 'allowed' | 'forbidden' | 'hidden' | 'refused' {
  if (rule.kind === 'ingest') return 'refused';
  if (who === 'owner' || rule.kind === 'signed-in') return 'allowed';
  if (rule.kind === 'owner') return 'forbidden';
  if (rule.kind !== 'project') return 'allowed';
  if (who === 'none') return 'hidden';
  return ROLES.indexOf(who) >= ROLES.indexOf(rule.role) ? 'allowed' : 'forbidden';
}

/** Routes whose project is the resource's own (a key by its prefix): no role there answers as an unknown resource. */
const HIDDEN_AS_NOT_FOUND = new Set(['DELETE /v1/api-keys/:prefix']);

const routes = () => registeredRoutes(app).filter((route) => route.method !== 'HEAD' && route.contract !== undefined);

describe('the role matrix', () => {
  it('gives every registered route a role rule', () => {
    const missing = routes().filter((route) => ruleOf(route.method, route.url) === undefined).map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });

  it('answers each person by their role, through personal tokens on /v1 and sessions on /ui/api', async () => {
    const outcomes: string[] = [];
    for (const route of routes()) {
      const rule = ruleOf(route.method, route.url)!;
      if (rule.kind === 'public') continue;
      for (const who of credentials.keys()) {
        const got = await outcomeOf(route.method, route.url, who);
        const want = expected(rule, who);
        if (got.outcome !== want) outcomes.push(`${route.method} ${route.url} as ${who}: ${want} expected, got ${got.detail}`);
      }
    }
    expect(outcomes).toEqual([]);
  });

  it('lists in the session, for each role, exactly the interface actions whose routes answer it', async () => {
    const mismatches: string[] = [];
    for (const [who, credential] of credentials) {
      const session = await app.inject({ method: 'GET', url: '/ui/api/session', headers: { cookie: credential.cookie } });
      expect(session.statusCode, session.body).toBe(200);
      const data = session.json().data as { actions: string[]; projects: { projectId: string; actions: string[] }[] };
      const inProject = data.projects.find((p) => p.projectId === project.projectId)?.actions ?? [];
      for (const action of ACTIONS) {
        const [method, url] = ACTION_ROUTES[action].split(' ') as [string, string];
        const shown = inProject.includes(action) || data.actions.includes(action);
        // What the interface shows is what the route allows, through the session as the interface calls it.
        const allowed = (await outcomeOf(method, url.replace('/v1/', '/ui/api/v1/'), who)).outcome === 'allowed';
        if (shown !== allowed) mismatches.push(`${action} as ${who}: ${shown ? 'shown' : 'hidden'} but the route is ${allowed ? 'allowed' : 'refused'}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

/** Calls a route as a person the way the matrix judges it: allowed, forbidden, hidden or refused. */
async function outcomeOf(method: string, routeUrl: string, who: Who): Promise<{ outcome: string; detail: string }> {
  const credential = credentials.get(who)!;
  const rule = ruleOf(method, routeUrl)!;
  const viaUi = routeUrl.startsWith('/ui/api/');
  const { url, payload } = sample(method, routeUrl);
  const headers = viaUi ? { cookie: credential.cookie, ...SAME_ORIGIN } : bearer(credential.token);
  const response = await app.inject({
    method: method as 'GET',
    url,
    headers: { ...headers, 'x-service-project-id': project.projectId },
    ...(payload !== undefined ? { payload } : {}),
    remoteAddress: '203.0.113.7',
  });
  const code = response.statusCode >= 400 ? (response.json() as { error: { code: string } }).error.code : '';
  // Ingestion reads its body before the key (event protocol 1.5): any refusal is a refusal.
  const outcome =
    rule.kind === 'ingest' && response.statusCode >= 400 && response.statusCode < 500 ? 'refused'
    : code === 'forbidden' ? 'forbidden' : code === 'project_not_found' || (code === 'not_found' && HIDDEN_AS_NOT_FOUND.has(`${method} ${routeUrl.replace('/ui/api/v1/', '/v1/')}`)) ? 'hidden' : code === 'unauthorized' ? 'refused' : response.statusCode < 500 ? 'allowed' : `failed ${code}`;
  return { outcome, detail: `${response.statusCode} ${code}` };
}
