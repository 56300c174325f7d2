// Erasure with match loose (an opt-in): the dry run says what each form of the value finds, the
// run deletes every journey any form finds; an exact erasure still matches the value only.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { admin, auditRows, ingest, journeyIds } from './test-fixtures.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  project = await seedProject(db.pool, keyring, 'loose-erase');
  await ingest(app, project.apiKey, [
    { journeyId: 'j-mail-exact', entityId: 'x-1', aliases: { email: 'ada@example.com' }, timestamp: '2026-01-10T10:00:00.000Z' },
    { journeyId: 'j-mail-case', entityId: 'x-2', aliases: { contact: 'ADA@Example.com' }, timestamp: '2026-01-11T10:00:00.000Z' },
    { journeyId: 'j-entity', entityId: 'ada@example.com', timestamp: '2026-01-12T10:00:00.000Z' },
    { journeyId: 'j-phone-intl', entityId: 'x-3', aliases: { phone: '+44 20 7946 0018' }, timestamp: '2026-01-13T10:00:00.000Z' },
    { journeyId: 'j-phone-natl', entityId: 'x-4', aliases: { mobile: '020-7946-0018' }, timestamp: '2026-01-14T10:00:00.000Z' },
    { journeyId: 'j-keep', entityId: 'x-5', aliases: { email: 'bob@example.com', phone: '+44 20 7946 0019' }, timestamp: '2026-01-15T10:00:00.000Z' },
  ]);
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const erase = (body: unknown) =>
  app.inject({ method: 'POST', url: '/v1/erasures', headers: { ...admin(project.projectId), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
const listed = (data: { journeys: Array<{ id: string }> }) => data.journeys.map((j) => j.id);

describe('POST /v1/erasures with match loose', () => {
  it('an exact dry run answers as before: the value as normalized, no forms', async () => {
    const response = await erase({ value: 'ada@example.com', dryRun: true });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json().data).sort()).toEqual(['journeys', 'total']);
    expect(listed(response.json().data)).toEqual(['j-entity', 'j-mail-exact']);
  });

  it('a loose dry run lists what every form finds and how many each form finds', async () => {
    const mail = (await erase({ value: 'Ada@EXAMPLE.com', dryRun: true, match: 'loose' })).json().data;
    expect(listed(mail)).toEqual(['j-mail-case', 'j-mail-exact']);
    expect(mail.forms).toEqual([{ form: 'exact', total: 0 }, { form: 'email', total: 2 }]);
    const phone = (await erase({ value: '+44 (0)20 7946 0018', dryRun: true, match: 'loose' })).json().data;
    expect(listed(phone)).toEqual(['j-phone-natl', 'j-phone-intl']);
    expect(phone.forms).toEqual([{ form: 'exact', total: 0 }, { form: 'phone', total: 1 }, { form: 'phone_national', total: 2 }]);
    const spaced = (await erase({ value: '+44 20 7946 0018', dryRun: true, match: 'loose' })).json().data;
    expect(listed(spaced)).toEqual(['j-phone-natl', 'j-phone-intl']);
    expect(spaced.forms).toEqual([{ form: 'exact', total: 1 }, { form: 'phone', total: 1 }, { form: 'phone_national', total: 2 }]);
    expect(await auditRows(db.pool, project.projectId, 'erasure.completed')).toEqual([]);
  });

  it('refuses another match value', async () => {
    const response = await erase({ value: 'x', match: 'fuzzy' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
  });

  it('a loose run removes the journeys every form finds and nothing else', async () => {
    // Entity ids have no loose form: the entity id ada@example.com is matched exactly only.
    const mail = await erase({ value: 'ADA@example.COM', match: 'loose' });
    expect(mail.json().data).toEqual({ deletedJourneys: 2, deletedEvents: 2, complete: true });
    const phone = await erase({ value: '020 7946 0018', match: 'loose' });
    expect(phone.json().data).toEqual({ deletedJourneys: 2, deletedEvents: 2, complete: true });
    expect(await journeyIds(db.pool, project.projectId)).toEqual(['j-entity', 'j-keep']);
    const rows = await auditRows(db.pool, project.projectId, 'erasure.completed');
    expect(rows).toHaveLength(2);
    expect(JSON.stringify(rows)).not.toMatch(/ada|7946/iu);
  });
});
