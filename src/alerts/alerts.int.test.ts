import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, buildTestApp } from '../../test/helpers/app.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { contactJourney } from '../forensics/test-journeys.ts';
import { drainAll, quietAnalyzer } from '../findings/test-kit.ts';
import type { Analyzer } from '../findings/analyzer.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { createReadFixture, ingest, keyring, type ReadFixture } from '../query/test-fixtures.ts';
import { startAlertDispatcher, type Dispatcher } from './dispatcher.ts';
import { MAX_ALERT_RULES } from './limits.ts';
import { verifyNotification } from './signing.ts';
import { runTestCli } from '../../test/helpers/cli.ts';

/**
 * Two server instances on one database: each runs an analyzer and a dispatcher, one of each
 * works, both serve. A real HTTP receiver checks every signature; it answers 500 twice to the
 * first notification and gets it again until it answers 200, then never again.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}

let fx: ReadFixture;
let poolB: Pool;
let appA: FastifyInstance;
let appB: FastifyInstance;
let receiver: Server;
let origin: string;
const received: Received[] = [];
let failuresLeft = 2;
let clock = Date.parse('2026-03-01T12:00:10.000Z');
const now = () => clock;
const instances: Array<{ analyzer: Analyzer; dispatcher: Dispatcher; metrics: ReturnType<typeof createMetrics> }> = [];

beforeAll(async () => {
  fx = await createReadFixture(now);
  poolB = createPool({ connectionString: fx.db.url, max: 4, statementTimeoutMs: 10_000 });
  appA = (await buildTestApp(fx.db.pool, { keyring, now, config: { alertAllowedHosts: ['127.0.0.1'] } })).app;
  appB = (await buildTestApp(poolB, { keyring, now, config: { alertAllowedHosts: ['127.0.0.1'] } })).app;
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body, path: request.url ?? '' });
      const fail = request.url === '/hook' && failuresLeft > 0;
      if (fail) failuresLeft--;
      response.writeHead(fail ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  for (const pool of [fx.db.pool, poolB]) {
    const metrics = createMetrics();
    instances.push({
      analyzer: quietAnalyzer(pool, { now }),
      dispatcher: startAlertDispatcher({ pool, keyring, logger: pino({ level: 'silent' }), metrics, allowedHosts: ['127.0.0.1'], version: 'test', now, intervalMs: 3_600_000, backoffBaseMs: 1_000 }),
      metrics,
    });
  }
});
afterAll(async () => {
  for (const instance of instances) {
    await instance.analyzer.stop();
    await instance.dispatcher.stop();
  }
  await appA.close();
  await appB.close();
  await poolB.end();
  await new Promise((resolve) => receiver.close(resolve));
  await fx.close();
});

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const passes = async () => {
  for (const { dispatcher } of instances) await dispatcher.runOnce();
};
const analyse = async () => {
  for (const { analyzer } of instances) await analyzer.drain();
  await drainAll(instances.find((i) => i.analyzer.holdsLock())!.analyzer, fx.db.pool);
};

describe('alerts across two instances', () => {
  it('sends nothing while no rule exists', async () => {
    await ingest(fx, 'production', contactJourney('jrn-before', 'lost'));
    await analyse();
    await passes();
    expect(received).toEqual([]);
    expect((await fx.db.pool.query('SELECT count(*)::int AS n FROM alert_outbox')).rows[0].n).toBe(0);
    expect(instances.filter((i) => i.analyzer.holdsLock())).toHaveLength(1);
  });

  it('refuses a webhook whose host is not allowed, and an unknown environment', async () => {
    const url = `/v1/projects/${fx.projectId}/alert-rules`;
    const bad = await appA.inject({ method: 'POST', url, headers: admin, payload: JSON.stringify({ name: 'x', kind: 'lost', channel: { type: 'webhook', url: 'http://example.com/hook' } }) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_request', details: [{ path: 'channel.url' }] });
    const zero = await appA.inject({ method: 'POST', url, headers: admin, payload: JSON.stringify({ name: 'x', kind: 'lost', threshold: { count: 0, windowMinutes: 0 }, channel: { type: 'webhook', url: `${origin}/hook` } }) });
    expect(zero.statusCode).toBe(400);
    // Every field at fault, not only the first, so the form names each one.
    expect(zero.json().error).toMatchObject({ code: 'invalid_request', details: [{ path: 'threshold.count' }, { path: 'threshold.windowMinutes' }] });
    const env = await appA.inject({ method: 'POST', url, headers: admin, payload: JSON.stringify({ name: 'x', kind: 'lost', environment: 'nope', channel: { type: 'webhook', url: `${origin}/hook` } }) });
    expect(env.statusCode).toBe(404);
    expect(env.json().error.code).toBe('environment_not_found');
  });

  it('delivers each alert once, signed, and again after two 500s; both instances serve', async () => {
    const url = `/v1/projects/${fx.projectId}/alert-rules`;
    const created = await appA.inject({
      method: 'POST', url, headers: admin,
      payload: JSON.stringify({ name: 'Lost phone', kind: 'lost', path: 'customer.phone', channel: { type: 'webhook', url: `${origin}/hook` } }),
    });
    expect(created.statusCode, created.body).toBe(201);
    const rule = created.json().data as { id: string; secret: string };
    const slack = await appB.inject({
      method: 'POST', url, headers: { ...admin, 'x-service-project-id': fx.projectId },
      payload: JSON.stringify({ name: 'Failures', kind: 'lost', threshold: { count: 2, windowMinutes: 5 }, channel: { type: 'slack', url: `${origin}/slack` } }),
    });
    expect(slack.statusCode, slack.body).toBe(201);
    const slackSecret = slack.json().data.secret as string;

    // Found in the next one-minute window: only these two journeys count in it.
    clock = Date.parse('2026-03-01T12:01:10.000Z');
    await ingest(fx, 'production', [...contactJourney('jrn-a1', 'lost'), ...contactJourney('jrn-a2', 'transit')]);
    await analyse();
    for (let attempt = 0; attempt < 3; attempt++) {
      await passes();
      clock += 5_000; // past the backoff (1 s, then 2 s)
    }
    await passes();
    await passes();

    const hooks = received.filter((r) => r.path === '/hook');
    expect(hooks).toHaveLength(3);
    expect(new Set(hooks.map((r) => r.headers['x-jtrace-delivery'])).size).toBe(1);
    for (const hook of hooks) expect(verifyNotification(rule.secret, String(hook.headers['x-jtrace-signature']), hook.body)).toBe(true);
    const body = JSON.parse(hooks[0]!.body);
    expect(body).toMatchObject({ notification: 'firing', count: 2, rule: { id: rule.id, kind: 'lost', path: 'customer.phone' } });
    expect(body.journeys.map((j: { journeyId: string }) => j.journeyId).sort()).toEqual(['jrn-a1', 'jrn-a2']);
    expect(body.journeys[0].link).toMatch(/^\/ui\/projects\/[0-9a-f-]+\/journeys\/jrn-a/);

    const slacks = received.filter((r) => r.path === '/slack');
    expect(slacks).toHaveLength(1);
    expect(verifyNotification(slackSecret, String(slacks[0]!.headers['x-jtrace-signature']), slacks[0]!.body)).toBe(true);
    expect(JSON.parse(slacks[0]!.body).text).toMatch(/^jtrace: \d+ lost findings \(rule "Failures"/);

    const log = await appB.inject({ method: 'GET', url: `${url}/${rule.id}/deliveries`, headers: { ...admin, 'x-service-project-id': fx.projectId } });
    expect(log.json().data.items.map((d: { outcome: string; statusCode: number }) => `${d.outcome} ${d.statusCode}`)).toEqual(['sent 200', 'error_status 500', 'error_status 500']);
    let sent = 0;
    for (const instance of instances) sent += (await instance.metrics.alertsSent.get()).values[0]?.value ?? 0;
    expect(sent).toBe(2);

    // Both serve the findings.
    for (const app of [appA, appB]) {
      const list = await app.inject({ method: 'GET', url: '/v1/journeys?since=2026-01-01T00:00:00Z&finding=lost&path=customer.phone', headers: { ...admin, 'x-service-project-id': fx.projectId } });
      expect(list.json().data.items.map((i: { journeyId: string }) => i.journeyId)).toEqual(expect.arrayContaining(['jrn-a1', 'jrn-a2', 'jrn-before']));
    }
  });

  it('resolves when a whole window passes under the threshold, and a muted rule stays quiet', async () => {
    received.length = 0;
    clock = Date.parse('2026-03-01T12:03:10.000Z');
    await passes();
    const hooks = received.filter((r) => r.path === '/hook');
    expect(hooks.map((r) => JSON.parse(r.body).notification)).toEqual(['resolved']);

    const rules = await fx.app.inject({ method: 'GET', url: `/v1/projects/${fx.projectId}/alert-rules`, headers: admin });
    const ruleId = rules.json().data.items.find((r: { name: string }) => r.name === 'Lost phone').id as string;
    const muted = await fx.app.inject({ method: 'PATCH', url: `/v1/projects/${fx.projectId}/alert-rules/${ruleId}`, headers: admin, payload: JSON.stringify({ mutedUntil: '2026-03-01T13:00:00Z' }) });
    expect(muted.json().data.mutedUntil).toBe('2026-03-01T13:00:00.000Z');
    received.length = 0;
    await ingest(fx, 'production', contactJourney('jrn-a3', 'lost'));
    await analyse();
    await passes();
    expect(received.filter((r) => r.path === '/hook')).toEqual([]);
  });

  it('lists rules, their delivery log, and mutes from the CLI', async () => {
    const cli = (argv: string[]) => runTestCli(argv, { pool: fx.db.pool, keyring });
    const listed = await cli(['alert:list', 'acme']);
    expect(listed.code).toBe(0);
    const line = listed.out.find((l) => l.includes('Lost phone'))!;
    expect(line).toContain('lost customer.phone');
    const ruleId = line.split(' ')[0]!;
    const log = await cli(['alert:list', 'acme', '--deliveries', ruleId]);
    expect(log.out.some((l) => l.includes('attempt 3  sent 200'))).toBe(true);
    expect((await cli(['alert:mute', 'acme', ruleId, '--unmute'])).out).toEqual(['Lost phone: not muted']);
    expect((await cli(['alert:mute', 'acme', ruleId])).code).toBe(2);
    expect((await cli(['alert:mute', 'acme', '00000000-0000-4000-8000-000000000000', '--unmute'])).code).toBe(1);
  });

  it('is taken over by the other instance when the sending one stops', async () => {
    const holder = instances.find((i) => i.dispatcher.holdsLock())!;
    const other = instances.find((i) => i !== holder)!;
    await holder.dispatcher.stop();
    await other.dispatcher.runOnce();
    expect(other.dispatcher.holdsLock()).toBe(true);
  });

  it('holds at most 100 rules per project', async () => {
    await fx.db.pool.query(
      `INSERT INTO alert_rules (project_id, id, name, kind, threshold_count, window_minutes, channel, url, secret_encrypted, muted_until)
       SELECT $1, gen_random_uuid(), 'filler ' || n, 'failed', 1, 1, 'webhook', 'http://127.0.0.1:9/x', 'x', '2099-01-01Z'
         FROM generate_series(1, $2::int - (SELECT count(*)::int FROM alert_rules WHERE project_id = $1)) AS n`,
      [fx.projectId, MAX_ALERT_RULES],
    );
    const response = await appA.inject({
      method: 'POST', url: `/v1/projects/${fx.projectId}/alert-rules`, headers: admin,
      payload: JSON.stringify({ name: 'one more', kind: 'lost', channel: { type: 'webhook', url: `${origin}/hook` } }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
  });
});
