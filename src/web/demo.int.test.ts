import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTestCli } from '../../test/helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { drainAll, quietAnalyzer } from '../findings/test-kit.ts';
import { DEMO_JOURNEY_COUNT, DEMO_STALLED_JOURNEY, demoOutcome } from './demo-journeys.ts';
import { keyring, signIn, webApp } from './test-kit.ts';

let db: TestDatabase;
let app: FastifyInstance;
let cookie: string;
const demo = () => runTestCli(['demo'], { pool: db.pool, keyring });
const count = async (sql: string) => (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`)).rows[0]!.n;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await webApp(db);
  cookie = await signIn(app);
});

afterAll(async () => {
  await app.close();
  await db.drop();
});

describe('jtrace demo', () => {
  it('creates project demo with its journeys through ingestion, and prints their ids', async () => {
    const run = await demo();
    expect(run.err).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.out[0]).toMatch(new RegExp(`^project demo \\([0-9a-f-]{36}\\): ${DEMO_JOURNEY_COUNT} journeys added, 0 already there$`));
    expect(run.out.filter((line) => /^jrn_demo_\d+\tcontact-\d+\t/.test(line))).toHaveLength(DEMO_JOURNEY_COUNT);
    expect(await count('journeys')).toBe(DEMO_JOURNEY_COUNT);
    expect(await count("api_keys WHERE name = 'demo'")).toBe(1);

    const statuses = await db.pool.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM journeys GROUP BY status');
    const byStatus = Object.fromEntries(statuses.rows.map((row) => [row.status, row.n]));
    const expected = { completed: 0, failed: 0, active: 0 };
    for (let i = 0; i < DEMO_JOURNEY_COUNT; i++) {
      const outcome = demoOutcome(i);
      expected[outcome === 'failed' ? 'failed' : outcome === 'in-progress' ? 'active' : 'completed'] += 1;
    }
    expect(byStatus).toEqual(Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0)));
  });

  it('is found by entity id and by email alias, and shows the lost phone first in the diff', async () => {
    const byEntity = await app.inject({ method: 'GET', url: '/ui/api/v1/search?q=contact-1003', headers: { cookie } });
    expect(byEntity.json().data.items.map((j: { journeyId: string }) => j.journeyId)).toEqual(['jrn_demo_1003']);
    const email = (await app.inject({ method: 'GET', url: '/ui/api/v1/journeys/jrn_demo_1003', headers: { cookie } })).json().data
      .aliases.find((a: { type: string }) => a.type === 'email').displayValue;
    const byAlias = await app.inject({ method: 'GET', url: `/ui/api/v1/search?q=${encodeURIComponent(email)}`, headers: { cookie } });
    expect(byAlias.json().data.items.map((j: { journeyId: string }) => j.journeyId)).toEqual(['jrn_demo_1003']);
    expect(demoOutcome(2)).toBe('phone-lost');
    const diff = await app.inject({ method: 'GET', url: '/ui/api/v1/events/evt_demo_1003_02/diff', headers: { cookie } });
    expect(diff.json().data.rows[0]).toMatchObject({ path: 'customer.phone', kind: 'lost' });
  });

  it('shows findings: lost-phone journeys under finding=lost, customer.phone on top, one overdue journey', async () => {
    const analyzer = quietAnalyzer(db.pool);
    await drainAll(analyzer, db.pool);
    await analyzer.stop();
    const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
    const lost = await app.inject({ method: 'GET', url: `/ui/api/v1/journeys?since=${since}&finding=lost&path=customer.phone&limit=100`, headers: { cookie } });
    const lostIds = lost.json().data.items.map((j: { journeyId: string }) => j.journeyId).sort();
    const expectedLost = Array.from({ length: DEMO_JOURNEY_COUNT }, (_, i) => i)
      .filter((i) => demoOutcome(i) === 'phone-lost' || demoOutcome(i) === 'phone-dropped')
      .map((i) => `jrn_demo_${1001 + i}`)
      .sort();
    expect(lostIds).toEqual(expectedLost);
    const summary = await app.inject({ method: 'GET', url: `/ui/api/v1/findings/summary?since=${since}`, headers: { cookie } });
    expect(summary.json().data.topLostFields.map((f: { path: string }) => f.path)).toContain('customer.phone');
    const overdue = await app.inject({ method: 'GET', url: `/ui/api/v1/journeys?since=${since}&finding=overdue`, headers: { cookie } });
    expect(overdue.json().data.items.map((j: { journeyId: string }) => j.journeyId)).toEqual([`jrn_demo_${1001 + DEMO_STALLED_JOURNEY}`]);
    const project = (await app.inject({ method: 'GET', url: '/ui/api/v1/projects', headers: { cookie } })).json().data.items[0].id as string;
    const expectations = await app.inject({ method: 'GET', url: `/ui/api/v1/projects/${project}/expectations`, headers: { cookie } });
    expect(expectations.json().data.items).toMatchObject([{ entityType: 'contact', finalStep: 'deliver', deadlineSeconds: 60 }]);
  });

  it('adds nothing when run again', async () => {
    const before = { events: await count('events'), keys: await count('api_keys'), projects: await count('projects') };
    const run = await demo();
    expect(run.code).toBe(0);
    expect(run.out[0]).toMatch(new RegExp(`: 0 journeys added, ${DEMO_JOURNEY_COUNT} already there$`));
    expect({ events: await count('events'), keys: await count('api_keys'), projects: await count('projects') }).toEqual(before);
  });

  it('names the address the server listens on with the same PORT and HOST', async () => {
    const onPort = await runTestCli(['demo'], { pool: db.pool, keyring, config: { port: 18151 } });
    expect(onPort.out.at(-1)).toContain('http://127.0.0.1:18151/ui/');
    const onHost = await runTestCli(['demo'], { pool: db.pool, keyring, config: { host: '0.0.0.0', port: 8090 } });
    expect(onHost.out.at(-1)).toContain('http://127.0.0.1:8090/ui/');
    const onLan = await runTestCli(['demo'], { pool: db.pool, keyring, config: { host: '10.1.2.3', port: 8091 } });
    expect(onLan.out.at(-1)).toContain('http://10.1.2.3:8091/ui/');
  });
});
