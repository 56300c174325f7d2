// A real jtrace server on a free port for the SDK's end-to-end tests: the app from the root's
// test helper over a fresh database clone, listening on 127.0.0.1 so requests cross real HTTP.
import type { FastifyInstance } from 'fastify';
import { TEST_ENCRYPTION_KEY, buildTestApp, seedProject } from '../../../test/helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database.ts';
import { createKeyring } from '../../../src/crypto/keyring.ts';
import { updateEnvironment, type CaptureMode } from '../../../src/projects/environments-sql.ts';

/** An environment's capture settings, as a conformance case's `setup.environment` gives them. */
export interface EnvironmentSettings {
  captureMode?: CaptureMode;
  allowFullPayload?: boolean;
  redactionPaths?: string[];
  captureAllowlist?: string[];
}

export interface LiveServer {
  url: string;
  app: FastifyInstance;
  db: TestDatabase;
  /** A new project with one environment, configured when settings are given; returns its API key. */
  project(environment?: string, settings?: EnvironmentSettings): Promise<string>;
  /** A new project with one environment: its key and its id (what the interface's addresses hold). */
  seed(environment?: string): Promise<{ apiKey: string; projectId: string }>;
  close(): Promise<void>;
}

let projects = 0;

export async function startLiveServer(): Promise<LiveServer> {
  const db = await createTestDatabase();
  const keyring = createKeyring({ current: TEST_ENCRYPTION_KEY });
  const { app } = await buildTestApp(db.pool, { keyring });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    db,
    async project(environment = 'production', settings) {
      const seeded = await seedProject(db.pool, keyring, `sdk-${process.pid}-${++projects}`, environment);
      if (settings !== undefined) {
        // This server runs without full payload capture: a case asking for it needs another one.
        if (settings.allowFullPayload === true) throw new Error('allowFullPayload is not available on this test server');
        await updateEnvironment(db.pool, seeded.projectId, environment, {
          captureMode: settings.captureMode ?? 'redacted-payload',
          redactionPaths: settings.redactionPaths ?? [],
          captureAllowlist: settings.captureAllowlist ?? [],
        });
      }
      return seeded.apiKey;
    },
    async seed(environment = 'production') {
      const seeded = await seedProject(db.pool, keyring, `sdk-${process.pid}-${++projects}`, environment);
      return { apiKey: seeded.apiKey, projectId: seeded.projectId };
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}

export async function getJson(url: string, apiKey: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: response.status, body: await response.json() };
}
