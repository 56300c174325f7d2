import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { TEST_ADMIN_TOKEN, buildTestApp } from '../../test/helpers/app.ts';
import { createReadFixture, keyring, type ReadFixture } from '../query/test-fixtures.ts';

/** Editing a rule's fields through PATCH: the same checks as creation, admin only. */

let fx: ReadFixture;
let app: FastifyInstance;
let ruleId: string;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const patch = (payload: unknown, id = ruleId) =>
  app.inject({ method: 'PATCH', url: `/v1/projects/${fx.projectId}/alert-rules/${id}`, headers: admin, payload: JSON.stringify(payload) });

beforeAll(async () => {
  fx = await createReadFixture();
  app = (await buildTestApp(fx.db.pool, { keyring, config: { alertAllowedHosts: ['127.0.0.1'] } })).app;
  const created = await app.inject({
    method: 'POST', url: `/v1/projects/${fx.projectId}/alert-rules`, headers: admin,
    payload: JSON.stringify({ name: 'Lost phone', kind: 'lost', path: 'customer.phone', channel: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } }),
  });
  expect(created.statusCode).toBe(201);
  ruleId = created.json().data.id;
});
afterAll(async () => {
  await app.close();
  await fx.close();
});

describe('editing an alert rule', () => {
  it('changes the named fields and keeps the others', async () => {
    const response = await patch({
      name: 'Failed in staging', kind: 'failed', path: null, entityType: 'order', environment: 'staging',
      threshold: { count: 5, windowMinutes: 10 }, channel: { type: 'slack', url: 'http://127.0.0.1:9/slack' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      id: ruleId, name: 'Failed in staging', kind: 'failed', path: null, entityType: 'order', environment: 'staging',
      threshold: { count: 5, windowMinutes: 10 }, channel: { type: 'slack', url: 'http://127.0.0.1:9/slack' }, mutedUntil: null,
    });
    const renamed = await patch({ name: 'Failed orders' });
    expect(renamed.json().data).toMatchObject({ name: 'Failed orders', kind: 'failed', environment: 'staging', threshold: { count: 5, windowMinutes: 10 } });
    const listed = await app.inject({ method: 'GET', url: `/v1/projects/${fx.projectId}/alert-rules`, headers: admin });
    expect(listed.json().data.items).toEqual([renamed.json().data]);
  });

  it('refuses what creation refuses, naming the field, and changes nothing', async () => {
    const badHost = await patch({ channel: { type: 'webhook', url: 'http://203.0.113.9/hook' } });
    expect(badHost.statusCode).toBe(400);
    expect(badHost.json().error.code).toBe('invalid_request');
    const badFields = await patch({ name: '', threshold: { count: 0, windowMinutes: 10 } });
    expect(badFields.statusCode).toBe(400);
    const paths = badFields.json().error.details.map((d: { field?: string; path?: string }) => d.field ?? d.path);
    expect(paths.join(' ')).toMatch(/name/);
    expect(paths.join(' ')).toMatch(/threshold/);
    expect((await patch({ kind: 'nonsense' })).statusCode).toBe(400);
    expect((await patch({})).statusCode).toBe(400);
    expect((await patch({ environment: 'nowhere' })).json().error.code).toBe('environment_not_found');
    const listed = await app.inject({ method: 'GET', url: `/v1/projects/${fx.projectId}/alert-rules`, headers: admin });
    expect(listed.json().data.items[0]).toMatchObject({ name: 'Failed orders', environment: 'staging', channel: { url: 'http://127.0.0.1:9/slack' } });
  });

  it('answers not_found for an unknown rule and still mutes', async () => {
    expect((await patch({ name: 'x' }, '00000000-0000-4000-8000-000000000000')).json().error.code).toBe('not_found');
    const muted = await patch({ mutedUntil: '2026-03-01T13:00:00Z' });
    expect(muted.json().data).toMatchObject({ name: 'Failed orders', mutedUntil: '2026-03-01T13:00:00.000Z' });
  });
});
