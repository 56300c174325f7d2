import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../../test/helpers/app.ts';
import { dispatcherOn, loseAPhone, startReceiver, createAlertsFixture, type AlertsFixture, type Receiver } from '../alerts/test-kit.ts';

let a: AlertsFixture;
let receiver: Receiver;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

beforeAll(async () => {
  a = await createAlertsFixture();
  receiver = await startReceiver((_request, response) => response.writeHead(200).end());
});
afterAll(async () => {
  await receiver.close();
  await a.close();
});

async function rule(name: string, kind: string, path: string): Promise<string> {
  const response = await a.app.inject({ method: 'POST', url: `/v1/projects/${a.fx.projectId}/alert-rules`, headers: admin,
    payload: JSON.stringify({ name, kind, path: 'customer.phone', channel: { type: 'webhook', url: `${receiver.origin}${path}` } }) });
  expect(response.statusCode, response.body).toBe(201);
  const id = response.json().data.id as string;
  await a.fx.db.pool.query('UPDATE alert_rules SET created_at = $2 WHERE id = $1', [id, new Date(a.now())]);
  return id;
}

async function phoneLoss(): Promise<{ id: string; status: string }> {
  const response = await a.app.inject({ method: 'GET', url: `/v1/projects/${a.fx.projectId}/problems?status=all&kind=lost&path=customer.phone`, headers: admin });
  expect(response.json().data.items).toHaveLength(1);
  return response.json().data.items[0];
}

const setStatus = async (id: string, status: string) => {
  const response = await a.app.inject({ method: 'PATCH', url: `/v1/projects/${a.fx.projectId}/problems/${id}`, headers: admin, payload: JSON.stringify({ status }) });
  expect(response.statusCode, response.body).toBe(200);
};

const bodies = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body));

describe('alerts on problems', () => {
  it('a regression rule fires when a resolved problem comes back, delivered to a real receiver with the journey', async () => {
    await rule('phone came back', 'regression', '/regression');
    const dispatcher = dispatcherOn(a.fx.db.pool, a);
    await loseAPhone(a, 'own', 'jrn-before');
    await dispatcher.runOnce();
    expect(bodies('/regression')).toEqual([]);
    a.setClock(a.now() + 1_000);
    await setStatus((await phoneLoss()).id, 'resolved');
    a.setClock(a.now() + 1_000);
    await loseAPhone(a, 'own', 'jrn-again');
    expect((await phoneLoss()).status).toBe('regressed');
    await dispatcher.runOnce();
    const [sent] = bodies('/regression');
    expect(sent).toMatchObject({ notification: 'firing', count: 1, rule: { kind: 'regression', path: 'customer.phone' } });
    expect(sent.journeys.map((j: { journeyId: string }) => j.journeyId)).toEqual(['jrn-again']);
    await dispatcher.stop();
  });

  it('expected problems leave the findings summary and the finding alert rules; the findings stay', async () => {
    a.setClock(a.now() + 3_600_000);
    await loseAPhone(a, 'own', 'jrn-seen');
    const since = new Date(a.now() - 7_200_000).toISOString();
    const lostFields = async () => {
      const summary = await a.app.inject({ method: 'GET', url: `/v1/findings/summary?since=${since}`, headers: { ...admin, 'x-service-project-id': a.fx.projectId } });
      return summary.json().data.topLostFields.map((field: { path: string }) => field.path).sort();
    };
    // Every contact journey also loses its messageId at consume: that problem stays reported.
    expect(await lostFields()).toEqual(['customer.phone', 'messageId']);
    await setStatus((await phoneLoss()).id, 'expected');
    await rule('lost phone', 'lost', '/lost');
    const dispatcher = dispatcherOn(a.fx.db.pool, a);
    await loseAPhone(a, 'own', 'jrn-expected');
    await dispatcher.runOnce();
    expect(bodies('/lost')).toEqual([]);
    expect(await lostFields()).toEqual(['messageId']);
    const stored = await a.fx.db.pool.query(`SELECT kind FROM journey_findings WHERE journey_id = 'jrn-expected'`);
    expect(stored.rows[0].kind).toContain('lost');
    // Open again, the next loss alerts.
    await setStatus((await phoneLoss()).id, 'open');
    a.setClock(a.now() + 60_000);
    await loseAPhone(a, 'own', 'jrn-open');
    await dispatcher.runOnce();
    expect(bodies('/lost').map((b) => b.notification)).toContain('firing');
    await dispatcher.stop();
  });
});
