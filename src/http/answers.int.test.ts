// The answer schemas of the OpenAPI document are true: real requests through the app against the
// real database, every 2xx answer with a body parsed (strictly where the schema is strict) with
// the schema its route declares, for /v1, its /ui/api copy, the interface-only routes, OTLP
// and ingestion. A route whose body answer no request here produces fails the last test.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { createKeyring } from '../crypto/keyring.ts';
import { createPool } from '../db/pool.ts';
import { freePort } from '../../test/helpers/free-port.ts';
import { hexId, jsonLogs, jsonTraces } from '../otlp/test-payloads.ts';
import { startTarget, type Target } from '../replay/test-kit.ts';
import { SAME_ORIGIN, keyring, signIn } from '../web/test-kit.ts';
import { drainAll, quietAnalyzer } from '../findings/test-kit.ts';
import { AnswerCheck } from './test-answer-check.ts';
import { makePerson, sessionOf, tokenOf } from '../teams/test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;
let check: AnswerCheck;
let project: SeededProject;
let target: Target;
let closedPort: number;

beforeAll(async () => {
  db = await createTestDatabase();
  // 127.0.0.1 only: a destination on localhost is blocked (422), one on a closed port fails.
  app = (await buildTestApp(db.pool, { keyring, config: { otlpEnabled: true, replayAllowedHosts: ['127.0.0.1'], alertAllowedHosts: ['127.0.0.1'] } })).app;
  check = new AnswerCheck(app);
  project = await seedProject(db.pool, keyring, 'answers');
  target = await startTarget();
  closedPort = await freePort();
});
afterAll(async () => {
  await target.close();
  await app.close();
  await db.drop();
});

const contact = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0018' };
const { phone: _phone, ...withoutPhone } = contact;
const at = (second: number) => `2026-02-10T10:00:0${second}.000Z`;

/** The events of the scenario: journey a loses the phone number and fails, then completes. */
function journeyEvents(tag: string) {
  const base = { environment: 'production', entity: { type: 'contact', id: `contact-${tag}` } };
  const a = `jrn_${tag}_a`;
  const b = `jrn_${tag}_b`;
  const full = {
    ...base, id: `${tag}-a1`, journeyId: a, service: 'webhook', operation: 'received', name: 'receive', timestamp: at(1),
    input: { contact }, output: { customer: contact }, durationMs: 4, journeyLabel: 'Contact Ada',
    aliases: { email: contact.email, phone: contact.phone }, displayableAliases: ['email'],
    traceId: 'trace-1', spanId: 'span-1', messageId: 'msg-1', correlationId: 'corr-1',
    runtime: { language: 'node', version: '20.11.0', hostname: 'web-1', processId: 42, sdk: { name: '@jtrace/node', version: '0.1.0' } },
    deployment: { gitCommit: 'abc123', version: '1.2.3', image: 'web:1.2.3' },
    metadata: { attempt: 1, region: 'eu' },
  };
  const step = (journeyId: string, id: string, second: number, fields: Record<string, unknown>) => ({
    ...base, journeyId, id: `${tag}-${id}`, service: 'contacts', timestamp: at(second), ...fields,
  });
  return {
    a, b,
    single: [
      full,
      step(a, 'a2', 2, { operation: 'transformed', name: 'normalize', parentEventId: `${tag}-a1`, input: { customer: contact }, output: { customer: withoutPhone } }),
      step(a, 'a3', 3, { operation: 'delivered', name: 'deliver', input: { customer: withoutPhone }, error: { type: 'TimeoutError', message: 'carrier timed out', code: 'E_TIMEOUT' } }),
      step(a, 'a4', 4, { operation: 'completed', name: 'done' }),
    ],
    batch: [
      { ...full, id: `${tag}-b1`, journeyId: b, aliases: { email: contact.email } },
      step(b, 'b2', 2, { operation: 'transformed', name: 'normalize', input: { customer: contact }, output: { customer: contact } }),
      step(b, 'b4', 4, { operation: 'completed', name: 'done' }),
      step(`jrn_${tag}_erase`, 'e1', 5, { operation: 'received', name: 'receive', entity: { type: 'contact', id: `erase-${tag}` } }),
    ],
  };
}

/** Ingests the scenario's events through both ingestion routes, with a refused one and a dry run. */
async function ingest(tag: string) {
  const events = journeyEvents(tag);
  const key = { ...bearer(project.apiKey), 'content-type': 'application/json' };
  for (const event of events.single) {
    await check.call('POST', '/v1/events', { headers: key, payload: { protocolVersion: '0.1', event }, status: 202 });
  }
  const envelopes = [...events.batch, events.single[0], { id: `${tag}-bad`, operation: 'teleported' }].map((event) => ({ protocolVersion: '0.1', event }));
  const batch = await check.call('POST', '/v1/events/batch', { headers: key, payload: { events: envelopes }, status: 202 });
  expect(batch.json().data.results.map((r: { status: string; duplicate?: boolean }) => r.duplicate ?? r.status)).toEqual([false, false, false, false, true, 'rejected']);
  const preview = { ...events.batch[0]!, id: `${tag}-preview`, journeyId: `jrn_${tag}_preview` };
  const dryRun = await check.call('POST', '/v1/events/batch', {
    url: '/v1/events/batch?dryRun=true', headers: key, payload: { events: [{ protocolVersion: '0.1', event: preview }, { protocolVersion: '9.9', event: {} }] }, status: 200,
  });
  expect(dryRun.json().data.results[0].stored.journey.journeyId).toBe(`jrn_${tag}_preview`);
  return events;
}

/** Every route registered for both /v1 and /ui/api (src/app.ts, registerApiRoutes). */
async function exerciseApi(prefix: '' | '/ui/api', headers: Record<string, string>) {
  const tag = prefix === '' ? 'v1' : 'ui';
  const { a, b } = await ingest(tag);
  const json = { ...headers, 'content-type': 'application/json' };
  const call = (method: string, pattern: string, options: { url?: string; payload?: unknown; status?: number } = {}) =>
    check.call(method, `${prefix}${pattern}`, {
      ...(options.url === undefined ? {} : { url: `${prefix}${options.url}` }),
      headers: options.payload === undefined ? headers : json,
      ...(options.payload === undefined ? {} : { payload: options.payload as object }),
      status: options.status ?? 200,
    });

  await call('GET', '/v1/projects');
  await call('GET', '/v1/search', { url: `/v1/search?q=${encodeURIComponent(contact.email)}&since=2026-01-01T00:00:00Z` });
  const page = await call('GET', '/v1/journeys', { url: '/v1/journeys?since=2026-01-01T00:00:00Z&limit=1' });
  expect(page.json().data.nextCursor).toEqual(expect.any(String));
  await call('GET', '/v1/journeys', { url: '/v1/journeys?since=2026-01-01T00:00:00Z&status=failed' });
  for (const id of [a, b]) {
    await call('GET', '/v1/journeys/:journeyId', { url: `/v1/journeys/${id}` });
    await call('GET', '/v1/journeys/:journeyId/events', { url: `/v1/journeys/${id}/events` });
  }
  for (const id of ['a1', 'a2', 'a3', 'a4', 'b1']) await call('GET', '/v1/events/:eventId', { url: `/v1/events/${tag}-${id}` });

  await call('GET', '/v1/journeys/:journeyId/fields', { url: `/v1/journeys/${a}/fields?path=customer.phone` });
  await call('GET', '/v1/journeys/:journeyId/fields', { url: `/v1/journeys/${a}/fields?path=contact.email` });
  await call('GET', '/v1/journeys/:journeyId/changes', { url: `/v1/journeys/${a}/changes` });
  await call('GET', '/v1/journeys/compare', { url: `/v1/journeys/compare?a=${a}&b=${b}` });

  // Findings: analysed, then on the list, the journey read, the summary; expectations.
  const analyzer = quietAnalyzer(db.pool);
  await drainAll(analyzer, db.pool);
  await analyzer.stop();
  const lost = await call('GET', '/v1/journeys', { url: '/v1/journeys?since=2026-01-01T00:00:00Z&finding=lost&path=customer.phone' });
  expect(lost.json().data.items.map((item: { journeyId: string }) => item.journeyId)).toContain(a);
  await call('GET', '/v1/journeys/:journeyId', { url: `/v1/journeys/${a}` });
  await call('GET', '/v1/findings/summary', { url: '/v1/findings/summary?since=2026-01-01T00:00:00Z&until=2026-12-01T00:00:00Z' });
  const problemsUrl = `/v1/projects/${project.projectId}/problems`;
  const problems = await call('GET', '/v1/projects/:projectId/problems', { url: `${problemsUrl}?status=all&kind=lost` });
  const problemId = problems.json().data.items[0].id as string;
  await call('GET', '/v1/projects/:projectId/problems/:problemId', { url: `${problemsUrl}/${problemId}` });
  await call('GET', '/v1/projects/:projectId/problems/:problemId/journeys', { url: `${problemsUrl}/${problemId}/journeys` });
  await call('PATCH', '/v1/projects/:projectId/problems/:problemId', { url: `${problemsUrl}/${problemId}`, payload: { status: 'resolved', inNextRelease: true } });
  const expectationUrl = `/v1/projects/${project.projectId}/expectations`;
  await call('PUT', '/v1/projects/:projectId/expectations/:entityType', {
    url: `${expectationUrl}/contact`, payload: { steps: [{ name: 'receive' }, { name: 'normalize', optional: true }, { name: 'done' }], finalStep: 'done', maxGapSeconds: 60, deadlineSeconds: 3600 },
  });
  await call('POST', '/v1/projects/:projectId/expectations/:entityType/preview', {
    url: `${expectationUrl}/contact/preview`, payload: { steps: [{ name: 'receive' }, { name: 'done' }], finalStep: 'done', deadlineSeconds: 3600 },
  });
  await call('GET', '/v1/projects/:projectId/expectations', { url: expectationUrl });
  await call('GET', '/v1/projects/:projectId/expectations/:entityType/suggestion', { url: `${expectationUrl}/contact/suggestion?journeys=10` });
  const rulesUrl = `/v1/projects/${project.projectId}/alert-rules`;
  const rule = await call('POST', '/v1/projects/:projectId/alert-rules', {
    url: rulesUrl, payload: { name: `rule ${tag}`, kind: 'lost', path: 'customer.phone', channel: { type: 'webhook', url: `http://127.0.0.1:${closedPort}/hook` } }, status: 201,
  });
  const ruleId = rule.json().data.id as string;
  await call('GET', '/v1/projects/:projectId/alert-rules', { url: rulesUrl });
  await call('PATCH', '/v1/projects/:projectId/alert-rules/:ruleId', { url: `${rulesUrl}/${ruleId}`, payload: { mutedUntil: '2030-01-01T00:00:00Z' } });
  await call('GET', '/v1/projects/:projectId/alert-rules/:ruleId/deliveries', { url: `${rulesUrl}/${ruleId}/deliveries` });
  await call('POST', '/v1/projects/:projectId/alert-rules/:ruleId/test', { url: `${rulesUrl}/${ruleId}/test` });

  const destination = async (name: string, baseUrl: string) =>
    (await call('POST', '/v1/replay-destinations', { payload: { name, baseUrl, environmentType: 'local', headers: { 'x-api-key': 'replay-secret-value' } }, status: 201 })).json().data.id as string;
  const reached = await destination(`reached ${tag}`, target.origin);
  const blocked = await destination(`blocked ${tag}`, 'http://localhost:9');
  const refused = await destination(`refused ${tag}`, `http://127.0.0.1:${closedPort}`);
  await call('GET', '/v1/replay-destinations');
  // Verifying a fix: a batch replay of the problem's journeys, its history, results and cancel.
  const batch = await call('POST', '/v1/projects/:projectId/problems/:problemId/replays', {
    url: `${problemsUrl}/${problemId}/replays`, payload: { destinationId: reached, journeys: 1 }, status: 202,
  });
  const batchId = batch.json().data.id as string;
  const batchUrl = `/v1/projects/${project.projectId}/problem-replays/${batchId}`;
  await call('GET', '/v1/projects/:projectId/problems/:problemId/replays', { url: `${problemsUrl}/${problemId}/replays` });
  await call('GET', '/v1/projects/:projectId/problem-replays/:batchId', { url: batchUrl });
  await call('GET', '/v1/projects/:projectId/problem-replays/:batchId/results', { url: `${batchUrl}/results` });
  await call('POST', '/v1/projects/:projectId/problem-replays/:batchId/cancel', { url: `${batchUrl}/cancel` });
  await call('GET', '/v1/replay-destinations', { url: '/v1/replay-destinations?include=runCount' });
  await call('PATCH', '/v1/replay-destinations/:destinationId', { url: `/v1/replay-destinations/${blocked}`, payload: { name: `blocked ${tag} edited`, headers: { 'x-extra': 'another-secret' } } });
  await call('POST', '/v1/replay-destinations/url-check', { payload: { baseUrl: 'http://user@example.com' } });
  await call('POST', '/v1/replay-destinations/url-check', { payload: { baseUrl: target.origin } });
  const replay = (destinationId: string, status: number) => call('POST', '/v1/replays', { payload: { eventId: `${tag}-a1`, destinationId, path: '/contacts' }, status });
  const completed = await replay(reached, 200);
  expect(completed.json().data.comparison).toEqual(expect.any(Array));
  expect((await replay(refused, 200)).json().data.status).toBe('failed');
  expect((await replay(blocked, 422)).json().data.status).toBe('blocked');
  await call('GET', '/v1/replays/:replayId', { url: `/v1/replays/${completed.json().data.id}` });

  await call('POST', '/v1/erasures', { payload: { value: `erase-${tag}`, dryRun: true } });
  const erased = await call('POST', '/v1/erasures', { payload: { value: `erase-${tag}` } });
  expect(erased.json().data).toMatchObject({ deletedJourneys: 1, complete: true });
  await call('GET', '/v1/audit-log', { url: '/v1/audit-log?limit=100' });
  return { reached };
}

describe('answers match the schemas their routes declare', () => {
  it('probes and the document', async () => {
    await check.call('GET', '/health', { status: 200 });
    await check.call('GET', '/ready', { status: 200 });
    await check.call('GET', '/v1/openapi.json', { status: 200 });
  });

  it('readiness without a database (503 carries the same fields)', async () => {
    const pool = createPool({ connectionString: 'postgres://answers@127.0.0.1:1/answers', max: 1, statementTimeoutMs: 0 });
    const unready = (await buildTestApp(pool, { keyring })).app;
    try {
      const response = await new AnswerCheck(unready).call('GET', '/ready', { status: 503 });
      expect(response.json()).toMatchObject({ status: 'not_ready', reason: 'database_unavailable' });
    } finally {
      await unready.close();
      await pool.end();
    }
  });

  it('/v1 with the admin token, ingestion included', async () => {
    await exerciseApi('', { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': project.projectId });
  });

  it('/ui/api with the session, and the routes only the interface has', async () => {
    const cookie = await signIn(app);
    const headers = { cookie, ...SAME_ORIGIN, 'x-service-project-id': project.projectId };
    const { reached } = await exerciseApi('/ui/api', headers);
    await check.call('GET', '/ui/api/session', { headers, status: 200 });
    await check.call('GET', '/ui/api/sign-in-options', { headers, status: 200 });
    await check.call('GET', '/ui/api/v1/journeys/activity', { url: '/ui/api/v1/journeys/activity?since=2026-02-10T00:00:00Z&until=2026-02-11T00:00:00Z&buckets=24', headers, status: 200 });
    for (const id of ['ui-a2', 'ui-a4']) {
      await check.call('GET', '/ui/api/v1/events/:eventId/diff', { url: `/ui/api/v1/events/${id}/diff`, headers, status: 200 });
    }
    const preview = { eventId: 'ui-a1', destinationId: reached, path: '/contacts' };
    await check.call('POST', '/ui/api/v1/replays/preview', { headers: { ...headers, 'content-type': 'application/json' }, payload: preview, status: 200 });
    await check.call('GET', '/ui/api/v1/events/:eventId/replays', { url: '/ui/api/v1/events/ui-a1/replays', headers, status: 200 });
  });

  it('reads under another encryption key: entity ids and alias values read as null', async () => {
    const other = (await buildTestApp(db.pool, { keyring: createKeyring({ current: 'another-encryption-key-0123456789abcdefghijkl' }) })).app;
    try {
      const otherCheck = new AnswerCheck(other);
      const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': project.projectId };
      const journey = await otherCheck.call('GET', '/v1/journeys/:journeyId', { url: '/v1/journeys/jrn_v1_a', headers, status: 200 });
      expect(journey.json().data.entity.id).toBeNull();
      expect(journey.json().data.aliases[0].displayValue).toBeNull();
      await otherCheck.call('GET', '/v1/journeys', { url: '/v1/journeys?since=2026-01-01T00:00:00Z', headers, status: 200 });
      await otherCheck.call('GET', '/v1/events/:eventId', { url: '/v1/events/v1-a1', headers, status: 200 });
    } finally {
      await other.close();
    }
  });

  it('OTLP export responses (OTLP JSON), with and without partial success', async () => {
    const headers = { ...bearer(project.apiKey), 'content-type': 'application/json' };
    const journey = { 'jtrace.journey.id': `jrn_otlp_${hexId(8)}`, 'jtrace.entity.type': 'order', 'jtrace.entity.id': 'ord-1' };
    const span = (operation: string) => ({
      traceId: hexId(16), spanId: hexId(8), name: 'validate', startMs: Date.UTC(2026, 7, 6, 16), durationMs: 5,
      attributes: { ...journey, 'jtrace.operation': operation },
    });
    for (const operation of ['validated', 'teleported']) {
      await check.call('POST', '/v1/traces', { headers, payload: JSON.stringify(jsonTraces('checkout', [span(operation)])), status: 200 });
      const log = { timeMs: Date.UTC(2026, 7, 6, 17), body: 'stored', attributes: { ...journey, 'jtrace.operation': operation } };
      await check.call('POST', '/v1/logs', { headers, payload: JSON.stringify(jsonLogs('billing', [log])), status: 200 });
    }
  });

  it('accounts, memberships, personal tokens and sessions, on /v1 (a personal token) and /ui/api (a session)', async () => {
    const owner = await makePerson(db.pool, {}, { owner: true });
    const cookie = await sessionOf(app, owner.email);
    const token = (await tokenOf(app, cookie)).secret;
    for (const [prefix, headers] of [
      ['', { ...bearer(token), 'x-service-project-id': project.projectId }],
      ['/ui/api', { cookie, ...SAME_ORIGIN, 'x-service-project-id': project.projectId }],
    ] as const) {
      const json = { ...headers, 'content-type': 'application/json' };
      await check.call('GET', `${prefix}/v1/users`, { headers, status: 200 });
      const created = await check.call('POST', `${prefix}/v1/users`, { headers: json, payload: { email: `answers-${prefix.length}@example.com`, name: 'Grace' }, status: 201 });
      const userId = created.json().data.user.id as string;
      await check.call('PATCH', `${prefix}/v1/users/:userId`, { url: `${prefix}/v1/users/${userId}`, headers: json, payload: { name: 'Grace H.' }, status: 200 });
      await check.call('POST', `${prefix}/v1/users/:userId/password-links`, { url: `${prefix}/v1/users/${userId}/password-links`, headers, status: 201 });
      await check.call('GET', `${prefix}/v1/me`, { headers, status: 200 });
      await check.call('GET', `${prefix}/v1/me/tokens`, { headers, status: 200 });
      await check.call('POST', `${prefix}/v1/me/tokens`, { headers: json, payload: { name: 'answers', expiresAt: '2099-01-01T00:00:00Z' }, status: 201 });
      await check.call('GET', `${prefix}/v1/me/sessions`, { headers, status: 200 });
      await check.call('GET', `${prefix}/v1/projects/:projectId/members`, { url: `${prefix}/v1/projects/${project.projectId}/members`, headers, status: 200 });
    }
  });

  it('API keys and invitations of Settings, on /v1 (the admin token) and /ui/api (a session)', async () => {
    const owner = await makePerson(db.pool, {}, { owner: true });
    const cookie = await sessionOf(app, owner.email);
    for (const [prefix, headers] of [
      ['', bearer(TEST_ADMIN_TOKEN)],
      ['/ui/api', { cookie, ...SAME_ORIGIN }],
    ] as const) {
      const json = { ...headers, 'content-type': 'application/json' };
      const keys = `${prefix}/v1/projects/${project.projectId}/api-keys`;
      await check.call('POST', `${prefix}/v1/projects/:projectId/api-keys`, { url: keys, headers: json, payload: { name: 'answers', environment: 'production' }, status: 201 });
      await check.call('GET', `${prefix}/v1/projects/:projectId/api-keys`, { url: keys, headers, status: 200 });
      const invitations = `${prefix}/v1/projects/${project.projectId}/invitations`;
      const invited = await check.call('POST', `${prefix}/v1/projects/:projectId/invitations`, { url: invitations, headers: json, payload: { email: `invited-${prefix.length}@example.com`, role: 'viewer' }, status: 201 });
      await check.call('GET', `${prefix}/v1/projects/:projectId/invitations`, { url: invitations, headers, status: 200 });
      const userId = invited.json().data.member.id as string;
      await check.call('POST', `${prefix}/v1/projects/:projectId/invitations/:userId`, { url: `${invitations}/${userId}`, headers, status: 201 });
    }
  });

  it('settings of projects, environments and the instance, on /v1 and /ui/api', async () => {
    const owner = await makePerson(db.pool, {}, { owner: true });
    const cookie = await sessionOf(app, owner.email);
    const token = (await tokenOf(app, cookie)).secret;
    for (const [prefix, headers] of [
      ['', bearer(token)],
      ['/ui/api', { cookie, ...SAME_ORIGIN }],
    ] as const) {
      const json = { ...headers, 'content-type': 'application/json' };
      const slug = `settings-${prefix.length}`;
      const created = await check.call('POST', `${prefix}/v1/projects`, { headers: json, payload: { slug, name: 'Settings' }, status: 201 });
      const projectId = created.json().data.id as string;
      await check.call('PATCH', `${prefix}/v1/projects/:projectId`, { url: `${prefix}/v1/projects/${projectId}`, headers: json, payload: { name: 'Renamed' }, status: 200 });
      const envUrl = `${prefix}/v1/projects/${project.projectId}/environments`;
      await check.call('GET', `${prefix}/v1/projects/:projectId/environments`, { url: envUrl, headers, status: 200 });
      await check.call('POST', `${prefix}/v1/projects/:projectId/environments`, { url: envUrl, headers: json, payload: { name: `staging-${prefix.length}` }, status: 201 });
      await check.call('GET', `${prefix}/v1/projects/:projectId/environments/:name`, { url: `${envUrl}/production`, headers, status: 200 });
      await check.call('PATCH', `${prefix}/v1/projects/:projectId/environments/:name`, { url: `${envUrl}/production`, headers: json, payload: { retentionDays: 30 + prefix.length }, status: 200 });
      const settings = { captureMode: 'redacted-payload', redactionPaths: ['contact.email'], captureAllowlist: [] };
      const envelope = { protocolVersion: '0.1', event: { ...journeyEvents(`preview${prefix.length}`).single[0], id: `preview-${prefix.length}` } };
      await check.call('POST', `${prefix}/v1/projects/:projectId/environments/:name/rename`, { url: `${envUrl}/staging-${prefix.length}/rename`, headers: json, payload: { name: `renamed-${prefix.length}` }, status: 200 });
      await check.call('POST', `${prefix}/v1/projects/:projectId/environments/:name/capture-preview`, { url: `${envUrl}/production/capture-preview`, headers: json, payload: { settings, envelope }, status: 200 });
      await check.call('GET', `${prefix}/v1/instance`, { headers, status: 200 });
    }
  });

  it('every route answering 2xx with a body was checked', () => {
    const declared = check.declaredBodies();
    expect(declared.filter((answer) => !check.checkedAnswers().includes(answer))).toEqual([]);
    // /v1 and /ui/api (25 each), 4 interface-only, 2 ingestion (3 answers), 2 OTLP, 3 probes and the document.
    expect(check.checkedAnswers().filter((answer) => / 2\d\d$/.test(answer))).toEqual([...declared].sort());
    // The blocked replay's 422 carries a run too, on both copies of the route.
    expect(check.checkedAnswers().filter((answer) => / 422$/.test(answer))).toEqual(['POST /ui/api/v1/replays 422', 'POST /v1/replays 422']);
    // The accounts' routes (9 on each copy), the replay runs of an event (interface only), findings and alerts (8 on each copy),
    // settings of projects, environments and the instance (8 on each copy), API keys and invitations of Settings (5 on each copy),
    // destination edit, URL check and audit log (3 on each copy).
    // Problems: the list, one, its journeys and a status change (4 on each copy); verifying a fix: a batch replay, its
    // history, one batch, its results and cancel (5 on each copy); an expectation's preview, an alert rule's test
    // delivery and an environment's rename (3 on each copy).
    expect(declared).toHaveLength(132);
  });
});
