// Property: whatever hostile body reaches the Settings routes (NUL, unpaired surrogates, prototype
// keys, huge numbers, wrong types, deep nesting), each answers below 500 with the error body of
// interface-spec section 7, and an environment's stored settings stay ones the rules admit.
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.ts';
import { TEST_ADMIN_TOKEN, TEST_ENCRYPTION_KEY, bearer, buildTestApp, seedProject, type SeededProject } from '../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { findEnvironment } from './environments-sql.ts';
import { checkEnvironmentChange } from './settings-input.ts';

const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
let db: TestDatabase;
let app: FastifyInstance;
let project: SeededProject;

beforeAll(async () => {
  db = await createTestDatabase();
  app = (await buildTestApp(db.pool, { keyring })).app;
  project = await seedProject(db.pool, keyring, 'fuzz');
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

const PIECES = ['\u0000', '\uD800', '\uDC00', '__proto__', 'constructor', 'a..b', '**.x', '[*]', '*', 'a.b', ' a', 'full-payload', 'metadata-only', '9'.repeat(40), 'x'.repeat(600), '😀', '\n'];
const hostileString = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 5 })), { maxLength: 3 }).map((parts) => parts.join(''));
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    fc.oneof(fc.double(), fc.constantFrom(0, -1, 1, 7, 36_500, 36_501, 2 ** 53 + 1, 1e308)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 3 }),
  ),
}));
const field = fc.constantFrom('captureMode', 'retentionDays', 'redactionPaths', 'captureAllowlist', 'name', 'slug', 'settings', 'envelope', 'eventId', '__proto__');
const body = fc.oneof(value, fc.dictionary(field, value, { maxKeys: 4 }));
const ROUTES = [
  ['PATCH', () => `/v1/projects/${project.projectId}/environments/production`],
  ['POST', () => `/v1/projects/${project.projectId}/environments/production/capture-preview`],
  ['POST', () => `/v1/projects/${project.projectId}/environments`],
  ['POST', () => '/v1/projects'],
  ['PATCH', () => `/v1/projects/${project.projectId}`],
] as const;

describe('hostile bodies on the Settings routes', () => {
  it('answer below 500 in the spec error shape, and leave only admissible settings stored', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), body, async ([method, url], payload) => {
        const response = await app.inject({ method, url: url(), headers: { ...bearer(TEST_ADMIN_TOKEN), 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
        expect(response.statusCode, response.body).toBeLessThan(500);
        if (response.statusCode >= 400) {
          const error = response.json().error;
          expect(typeof error.code).toBe('string');
          expect(typeof error.requestId).toBe('string');
        }
        const stored = (await findEnvironment(db.pool, project.projectId, 'production'))!;
        const { captureMode, retentionDays, redactionPaths, captureAllowlist } = stored;
        expect(checkEnvironmentChange({ captureMode, retentionDays, redactionPaths, captureAllowlist }).ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
