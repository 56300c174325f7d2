import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ACTOR } from '../audit/audit-log.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createUser } from '../teams/accounts.ts';
import { createPersonalToken } from '../teams/tokens.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { jsonSchemaOf, registeredRoutes, type RegisteredRoute, type RouteContract } from './route-contract.ts';
import { SAME_ORIGIN, cookieHeader, signIn } from '../web/test-kit.ts';

/**
 * Every text a setting stores goes through one rule (src/http/body-fields.ts, storableText): a
 * NUL or an unpaired surrogate in any string field of any settings body is 400 invalid_request
 * at that field's path, never a 5xx and never stored as U+FFFD. The fields are found by walking
 * each registered route's declared body schema, so a new route or field is covered without being
 * named here; a route that writes without declaring its body fails the first test.
 */

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;

/** Routes with a body that are not settings, and why. */
const NOT_SETTINGS: Record<string, string> = {
  'POST /v1/events': 'ingestion: unstorable_payload per event (unstorable-strings.fuzz.int.test.ts)',
  'POST /v1/events/batch': 'ingestion, as above',
  'POST /v1/traces': 'OTLP ingestion, as above',
  'POST /v1/logs': 'OTLP ingestion, as above',
  'POST /ui/api/session': 'sign-in: the token is compared, never stored',
  'POST /ui/api/session/password': 'sign-in: the password is compared, never stored',
  'POST /ui/api/password-links': 'the link token is compared; the password is hashed, and passwordProblem refuses NUL and unpaired surrogates (passwords.test.ts)',
};

/** Writing routes that take no body. */
const BODILESS = new Set([
  'POST /v1/users/:userId/password-links',
  'POST /v1/projects/:projectId/invitations/:userId',
  'POST /v1/projects/:projectId/alert-rules/:ruleId/test',
  'POST /v1/projects/:projectId/problem-replays/:batchId/cancel',
]);

/** A valid body of each settings route (by its /v1 form), from which one field at a time is spoilt. */
const BASE_BODIES: Record<string, Record<string, unknown>> = {
  'POST /v1/erasures': { value: 'buyer@example.com', environment: 'production', dryRun: true },
  'POST /v1/replay-destinations': { name: 'staging', baseUrl: 'http://localhost:1/hooks', environmentType: 'local', headers: {} },
  'PATCH /v1/replay-destinations/:destinationId': { name: 'staging 2' },
  'POST /v1/replay-destinations/url-check': { baseUrl: 'http://localhost:1/hooks' },
  'POST /v1/replays': { eventId: 'evt_1', destinationId: '00000000-0000-4000-8000-000000000000', method: 'POST', path: '/orders' },
  'POST /v1/replays/preview': { eventId: 'evt_1', destinationId: '00000000-0000-4000-8000-000000000000', method: 'POST', path: '/orders' },
  'PUT /v1/projects/:projectId/expectations/:entityType': { steps: [{ name: 'received' }, { name: 'shipped' }], finalStep: 'shipped' },
  'POST /v1/projects/:projectId/expectations/:entityType/preview': { steps: [{ name: 'received' }, { name: 'shipped' }], finalStep: 'shipped' },
  'POST /v1/projects/:projectId/alert-rules': {
    name: 'lost orders',
    kind: 'lost',
    path: 'order.total',
    entityType: 'order',
    environment: 'production',
    channel: { type: 'webhook', url: 'https://hooks.example.com/x' },
  },
  'PATCH /v1/projects/:projectId/alert-rules/:ruleId': { mutedUntil: null },
  'POST /v1/users': { email: 'new@example.com', name: 'New Person' },
  'PATCH /v1/users/:userId': { name: 'Renamed Person' },
  'PUT /v1/projects/:projectId/members/:userId': { role: 'viewer' },
  'POST /v1/me/tokens': { name: 'laptop' },
  'POST /v1/projects/:projectId/invitations': { email: 'invited@example.com', name: 'Invited Person', role: 'viewer' },
  'POST /v1/projects/:projectId/api-keys': { name: 'ci key', environment: 'production' },
  'POST /v1/projects': { slug: 'another-project', name: 'Another project' },
  'PATCH /v1/projects/:projectId': { name: 'Renamed project' },
  'POST /v1/projects/:projectId/environments': { name: 'staging' },
  'POST /v1/projects/:projectId/environments/:name/rename': { name: 'staging 3' },
  'PATCH /v1/projects/:projectId/problems/:problemId': { status: 'ignored', until: '2099-01-01T00:00:00.000Z' },
  'POST /v1/projects/:projectId/problems/:problemId/replays': { destinationId: '00000000-0000-4000-8000-000000000000' },
  'PATCH /v1/projects/:projectId/environments/:name': { redactionPaths: ['order.card'], captureAllowlist: ['order.total'] },
  'POST /v1/projects/:projectId/environments/:name/capture-preview': {
    settings: { captureMode: 'redacted-payload', redactionPaths: ['order.card'], captureAllowlist: ['order.total'] },
    eventId: 'evt_1',
  },
};

const PIECES = { nul: '\u0000', 'lone high': '\uD800', 'lone low': '\uDC00', 'reversed pair': '\uDE00\uD83D' } as const;
type PieceName = keyof typeof PIECES;

type Segment = string | number;
type JsonSchema = Record<string, unknown>;

/** Paths of every string a body schema admits: properties, array items, record values (under the key `X-Fuzz`). */
export function stringFields(schema: JsonSchema, root: JsonSchema = schema, path: Segment[] = []): Segment[][] {
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/$defs/')) {
    return stringFields((root.$defs as Record<string, JsonSchema>)[schema.$ref.slice('#/$defs/'.length)]!, root, path);
  }
  const found: Segment[][] = [];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const option of (schema[key] as JsonSchema[] | undefined) ?? []) found.push(...stringFields(option, root, path));
  }
  const types = [schema.type].flat();
  if (types.includes('string') && path.length > 0) found.push(path);
  for (const [name, property] of Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {})) {
    found.push(...stringFields(property, root, [...path, name]));
  }
  if (typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null) {
    found.push(...stringFields(schema.additionalProperties as JsonSchema, root, [...path, 'X-Fuzz']));
  }
  if (typeof schema.items === 'object' && schema.items !== null) found.push(...stringFields(schema.items as JsonSchema, root, [...path, 0]));
  // One path once, whichever branch of a union found it.
  return [...new Map(found.map((p) => [p.join('.'), p])).values()];
}

/** The body with `text` at `path`, made from the base (containers created as the path needs). */
function spoil(base: Record<string, unknown>, path: Segment[], text: (plausible: string) => string): Record<string, unknown> {
  const body = structuredClone(base);
  let at: Record<Segment, unknown> = body;
  path.forEach((segment, i) => {
    if (i === path.length - 1) {
      const current = at[segment];
      at[segment] = text(typeof current === 'string' ? current : 'text');
      return;
    }
    const next = at[segment];
    if (typeof next !== 'object' || next === null) at[segment] = typeof path[i + 1] === 'number' ? [] : {};
    at = at[segment] as Record<Segment, unknown>;
  });
  return body;
}

interface Target {
  method: 'POST' | 'PUT' | 'PATCH';
  url: string;
  /** The route in its /v1 form, the key of BASE_BODIES. */
  key: string;
  fields: Segment[][];
}

let targets: Target[] = [];
// Body checks come before any lookup: a problem that does not exist still answers 400 at the field.
const params: Record<string, string> = { entityType: 'order', name: 'production', problemId: '00000000-0000-4000-8000-0000000000a1', batchId: '00000000-0000-4000-8000-0000000000b1' };
const headersFor: { admin: Record<string, string>; person: Record<string, string>; uiAdmin: Record<string, string>; uiPerson: Record<string, string> } = {
  admin: {},
  person: {},
  uiAdmin: {},
  uiPerson: {},
};

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app } = await buildTestApp(db.pool, { keyring, config: { alertAllowedHosts: ['localhost'] } }));
  const project = await seedProject(db.pool, keyring, 'texts');
  params.projectId = project.projectId;
  const password = 'correct horse battery staple 42';
  const owner = await createUser(db.pool, { email: 'owner@example.com', displayName: 'Owner', owner: true, password }, CLI_ACTOR, Date.now());
  params.userId = owner.user.id;
  const token = await createPersonalToken(db.pool, keyring, { userId: owner.user.id, name: 'fuzz', expiresAt: null, madeWithPrefix: null }, CLI_ACTOR, Date.now());
  const project_ = { 'x-service-project-id': project.projectId };
  headersFor.admin = { ...bearer(TEST_ADMIN_TOKEN), ...project_ };
  headersFor.person = { ...bearer(token.secret), ...project_ };
  headersFor.uiAdmin = { cookie: await signIn(app), ...SAME_ORIGIN, ...project_ };
  const personSignIn = await app.inject({ method: 'POST', url: '/ui/api/session/password', headers: SAME_ORIGIN, payload: { email: 'owner@example.com', password } });
  expect(personSignIn.statusCode).toBe(204);
  headersFor.uiPerson = { cookie: cookieHeader(personSignIn), ...SAME_ORIGIN, ...project_ };
  const destination = await app.inject({ method: 'POST', url: '/v1/replay-destinations', headers: headersFor.admin, payload: BASE_BODIES['POST /v1/replay-destinations'] });
  expect(destination.statusCode).toBe(201);
  params.destinationId = destination.json().data.id;
  const rule = await app.inject({
    method: 'POST',
    url: `/v1/projects/${project.projectId}/alert-rules`,
    headers: headersFor.admin,
    payload: { ...BASE_BODIES['POST /v1/projects/:projectId/alert-rules'], channel: { type: 'webhook', url: 'http://localhost:1/alerts' }, environment: null },
  });
  expect(rule.statusCode, rule.body).toBe(201);
  params.ruleId = rule.json().data.id;

  for (const route of registeredRoutes(app)) {
    const label = `${route.method} ${route.url}`;
    const body = route.contract?.body;
    if (body === undefined || NOT_SETTINGS[label] !== undefined || !['POST', 'PUT', 'PATCH'].includes(route.method)) continue;
    targets.push({ method: route.method as Target['method'], url: route.url, key: `${route.method} ${route.url.replace(/^\/ui\/api\/v1\//, '/v1/')}`, fields: stringFields(jsonSchemaOf(body.schema)) });
  }
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

function send(target: Target, payload: Record<string, unknown>): Promise<LightMyRequestResponse> {
  const ui = target.url.startsWith('/ui/');
  const person = target.key === 'POST /v1/me/tokens';
  const headers = ui ? (person ? headersFor.uiPerson : headersFor.uiAdmin) : person ? headersFor.person : headersFor.admin;
  const url = target.url.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name]!));
  // JSON.stringify writes a lone surrogate as a \uD800 escape and NUL as \u0000, as a client would.
  return app.inject({ method: target.method, url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
}

function expectRefusedAt(response: LightMyRequestResponse, path: string, what: string): void {
  expect(response.statusCode, `${what} → ${response.statusCode} ${response.body.slice(0, 300)}`).toBe(400);
  const error = response.json().error as { code: string; details?: Array<{ path: string; message: string }> };
  expect(error.code, what).toBe('invalid_request');
  expect(error.details?.map((d) => d.path), what).toContain(path);
}

describe('the walk over the route contracts', () => {
  it('finds every settings route, each with a base body and at least one string field; a writing route without a declared body fails', () => {
    const undeclared = (routes: readonly RegisteredRoute[]) =>
      routes
        .filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method))
        .filter((r) => r.contract?.body === undefined && !BODILESS.has(`${r.method} ${r.url.replace(/^\/ui\/api\/v1\//, '/v1/')}`))
        .map((r) => `${r.method} ${r.url}`);
    expect(undeclared(registeredRoutes(app))).toEqual([]);
    // A new writing route whose contract declares no body is caught.
    const withoutBody = { ...registeredRoutes(app).find((r) => r.url === '/v1/projects/:projectId' && r.method === 'PATCH')! };
    withoutBody.contract = { ...withoutBody.contract!, body: undefined } as RouteContract;
    expect(undeclared([{ ...withoutBody, url: '/v1/projects/:projectId/labels' }])).toEqual(['PATCH /v1/projects/:projectId/labels']);
    expect(targets.filter((t) => BASE_BODIES[t.key] === undefined).map((t) => t.key)).toEqual([]);
    expect(targets.filter((t) => t.fields.length === 0).map((t) => t.key)).toEqual([]);
    // Every settings route is walked under both prefixes (the interface's twin included).
    for (const key of Object.keys(BASE_BODIES)) {
      const [method, url] = key.split(' ') as [string, string];
      const ui = targets.some((t) => t.method === method && t.url === url.replace(/^\/v1\//, '/ui/api/v1/'));
      const api = targets.some((t) => t.method === method && t.url === url);
      expect(ui || api, key).toBe(true);
    }
    const fieldsOf = (key: string) => targets.find((t) => t.key === key)!.fields.map((f) => f.join('.'));
    expect(fieldsOf('POST /v1/projects/:projectId/alert-rules')).toEqual(expect.arrayContaining(['name', 'path', 'entityType', 'environment', 'channel.url']));
    expect(fieldsOf('PUT /v1/projects/:projectId/expectations/:entityType')).toEqual(expect.arrayContaining(['steps.0.name', 'finalStep']));
    expect(fieldsOf('PATCH /v1/projects/:projectId/environments/:name')).toEqual(expect.arrayContaining(['redactionPaths.0', 'captureAllowlist.0']));
    expect(fieldsOf('POST /v1/replay-destinations')).toEqual(expect.arrayContaining(['name', 'baseUrl', 'headers.X-Fuzz']));
  });
});

describe('NUL or an unpaired surrogate in any string field of any settings body', () => {
  it.each(Object.keys(PIECES) as PieceName[])('%s: 400 invalid_request at the field, on every route and field', async (piece) => {
    for (const target of targets) {
      for (const field of target.fields) {
        const what = `${piece} in ${field.join('.')} of ${target.method} ${target.url}`;
        expectRefusedAt(await send(target, spoil(BASE_BODIES[target.key]!, field, (plausible) => `${plausible}${PIECES[piece]}`)), field.join('.'), what);
      }
    }
  });

  it('any lone surrogate or NUL, anywhere in the field, with anything around it (fast-check)', async () => {
    const slots = targets.flatMap((target) => target.fields.map((field) => ({ target, field })));
    const unit = (min: number, max: number) => fc.integer({ min, max }).map((code) => String.fromCharCode(code));
    const high = unit(0xd800, 0xdbff);
    const low = unit(0xdc00, 0xdfff);
    // `binary` strings hold whole code points only, so nothing around a piece pairs with it.
    const piece = fc.oneof(fc.constant('\u0000'), high, low, fc.tuple(low, high).map(([l, h]) => l + h));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...slots),
        piece,
        fc.string({ maxLength: 8, unit: 'binary' }),
        fc.string({ maxLength: 8, unit: 'binary' }),
        async ({ target, field }, bad, before, after) => {
          const text = `${before}${bad}${after}`;
          const what = `${JSON.stringify(text)} in ${field.join('.')} of ${target.method} ${target.url}`;
          expectRefusedAt(await send(target, spoil(BASE_BODIES[target.key]!, field, () => text)), field.join('.'), what);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
  });

  it('left no U+FFFD in any text or jsonb column', async () => {
    const columns = await db.pool.query<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
        WHERE c.table_schema = current_schema() AND c.data_type IN ('text', 'character varying', 'jsonb', 'ARRAY')`,
    );
    expect(columns.rows.length).toBeGreaterThan(10);
    const holding: string[] = [];
    for (const { table_name: table, column_name: column } of columns.rows) {
      const found = await db.pool.query(`SELECT 1 FROM "${table}" WHERE strpos("${column}"::text, chr(65533)) > 0 LIMIT 1`);
      if (found.rowCount! > 0) holding.push(`${table}.${column}`);
    }
    expect(holding).toEqual([]);
  });
});
