// The browser tests' data: the demo's journeys (src/web/demo-journeys.ts, what `jtrace demo`
// sends), sent through the real ingestion route of the server under test.
import { createKeyring } from '../../src/crypto/keyring.ts';
import type { Pool } from '../../src/db/pool.ts';
import { saveExpectation } from '../../src/findings/expectations.ts';
import { buildDemoJourneys, DEMO_ENVIRONMENT, DEMO_EXPECTATION, DEMO_PROJECT_SLUG } from '../../src/web/demo-journeys.ts';
import { seedProject, TEST_ENCRYPTION_KEY } from '../helpers/app.ts';
import { sendEvents } from './journeys.ts';

export interface DemoData {
  projectId: string;
  /** The project's key for DEMO_ENVIRONMENT, to send more events during a test. */
  apiKey: string;
}

export async function loadDemo(pool: Pool, baseUrl: string): Promise<DemoData> {
  const project = await seedProject(pool, createKeyring({ current: TEST_ENCRYPTION_KEY }), DEMO_PROJECT_SLUG, DEMO_ENVIRONMENT);
  const events = buildDemoJourneys(Date.now()).flatMap((journey) => journey.events.map((event) => ({ environment: DEMO_ENVIRONMENT, ...event })));
  await sendEvents(baseUrl, project.apiKey, events);
  // As `jtrace demo` does.
  const { entityType, ...expectation } = DEMO_EXPECTATION;
  await saveExpectation(pool, project.projectId, entityType, { ...expectation, steps: [...expectation.steps] });
  return { projectId: project.projectId, apiKey: project.apiKey };
}
