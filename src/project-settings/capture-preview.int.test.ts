// The capture preview equals what ingestion stores: for generated payloads, metadata, errors,
// capture modes, redaction rules and allowlists, an event is previewed under settings, then
// ingested for real under the same settings and read back; both must agree field for field
// (or both refuse the event with the same code).
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { testEnvelope } from '../ingest/test-fixtures.ts';
import { isValidRedactionRule } from '../protocol/redaction/operator-rules.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { updateEnvironment } from '../projects/environments-sql.ts';
import { CAPTURE_MODE_VALUES } from '../projects/settings-input.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
const apps: Record<'allowed' | 'refused', FastifyInstance> = {} as never;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  apps.refused = (await buildTestApp(db.pool, { keyring })).app;
  apps.allowed = (await buildTestApp(db.pool, { keyring, config: { allowFullPayloadCapture: true } })).app;
  project = await seedProject(db.pool, keyring, 'preview');
});
afterAll(async () => {
  await apps.refused.close();
  await apps.allowed.close();
  await db.drop();
});

// Few names, so that rules and allowlists often meet the payloads; some are built-in secret names.
const NAMES = ['a', 'b', 'card', 'Email', 'note', 'password', 'id', 'x-token'] as const;
const name = fc.constantFrom(...NAMES);
const text = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('Bearer abc.def.ghi', 'a\u0000b', 'user@example.com', ''));
const scalar = fc.oneof(text, fc.integer({ min: -1000, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, tie('object'), fc.array(tie('value'), { maxLength: 3 })),
  object: fc.dictionary(name, tie('value'), { maxKeys: 4 }),
}));
const object = fc.dictionary(name, value, { maxKeys: 4 });
const segment = fc.tuple(fc.oneof(name, fc.constant('*')), fc.boolean()).map(([head, elements]) => (elements ? `${head}[*]` : head));
const rule = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join('.')),
  name.map((n) => `**.${n}`),
  fc.constant('[*].a'),
).filter(isValidRedactionRule);
const allowPath = fc.array(name, { minLength: 1, maxLength: 3 }).map((keys) => keys.join('.'));
const settings = fc.record({
  captureMode: fc.constantFrom(...CAPTURE_MODE_VALUES),
  redactionPaths: fc.array(rule, { maxLength: 4 }),
  captureAllowlist: fc.array(allowPath, { maxLength: 3 }),
});
const event = fc.record(
  {
    input: value,
    output: value,
    metadata: object,
    error: fc.record({ message: text, type: fc.string({ maxLength: 8 }), stack: text }, { requiredKeys: ['message'] }),
  },
  { requiredKeys: [] },
);

const PARTS = ['hasInput', 'hasOutput', 'inputPayload', 'outputPayload', 'error', 'runtimeMetadata', 'deploymentMetadata', 'customMetadata'] as const;
const pick = (from: Record<string, unknown>) => Object.fromEntries(PARTS.map((part) => [part, from[part]]));

describe('the capture preview', () => {
  it('equals what ingestion stores for the same event under the same settings', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(settings, event, fc.constantFrom('allowed', 'refused' as const), async (edited, fields, flag) => {
        const app = apps[flag];
        const headers = { ...bearer(TEST_ADMIN_TOKEN), 'x-service-project-id': project.projectId };
        const envelope = testEnvelope(fields);
        const preview = await app.inject({
          method: 'POST',
          url: `/v1/projects/${project.projectId}/environments/production/capture-preview`,
          headers,
          payload: { settings: edited, envelope },
        });
        expect(preview.statusCode, preview.body).toBe(200);
        const previewed = preview.json().data;

        await updateEnvironment(db.pool, project.projectId, 'production', edited);
        const sent = await app.inject({ method: 'POST', url: '/v1/events', headers: bearer(project.apiKey), payload: envelope });
        if (sent.statusCode !== 202) {
          expect(previewed.stored).toBeNull();
          expect(previewed.refusal.code).toBe(sent.json().error.code);
          return;
        }
        const id = (envelope.event as { id: string }).id;
        const stored = await app.inject({ method: 'GET', url: `/v1/events/${encodeURIComponent(id)}`, headers });
        expect(stored.statusCode, stored.body).toBe(200);
        expect(previewed.refusal).toBeNull();
        expect(pick(previewed.stored)).toEqual(pick(stored.json().data));
        compared += 1;
      }),
      { numRuns: 60 },
    );
    // Most events are stored, so the comparison is the common case, not the refusal.
    expect(compared).toBeGreaterThan(30);
  });
});
