// `jtrace demo`: a project of realistic journeys to explore the web interface with. Events go
// through the real ingestion route (an in-process server on the CLI's database), so what the
// interface shows is exactly what ingestion stores. Re-running adds nothing twice: journeys
// already stored are skipped, and nothing at all is created when every one is there.

import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildApp } from '../../app.ts';
import { createApiKey } from '../../auth/api-key-service.ts';
import { readBuildInfo } from '../../health/build-info.ts';
import { createMetrics } from '../../metrics/metrics.ts';
import { createProject, findProjectBySlug } from '../../projects/projects-sql.ts';
import { getJourneyDetail } from '../../query/details.ts';
import { saveExpectation } from '../../findings/expectations.ts';
import { startAnalyzer } from '../../findings/analyzer.ts';
import { CLI_ACTOR } from '../../audit/audit-log.ts';
import { setProblemStatus } from '../../problems/problem-status.ts';
import { problemView } from '../../problems/problem-view.ts';
import { selectProblems } from '../../problems/problems-sql.ts';
import { PROBLEM_STATUSES } from '../../problems/problems-sql.ts';
import { problemLine } from './problems.ts';
import { DEMO_ENVIRONMENT, DEMO_EXPECTATION, DEMO_PROJECT_SLUG, buildDemoJourneys, type DemoJourney } from '../../web/demo-journeys.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK } from '../context.ts';
import { offerFixedService } from './demo-fixed-service.ts';

interface BatchAnswer {
  data: { results: Array<{ status: string; error?: { code: string } }> };
}

export const demoCommand: Command = {
  name: 'demo',
  usage: 'demo',
  summary: 'create project demo with a few dozen example journeys (idempotent)',
  spec: { positionals: [] },
  async run(ctx) {
    // Served after the database is closed: the server started next must not find it held.
    let serveFix = async () => undefined as void;
    const code = await ctx.withServices(async ({ pool, keyring, config }) => {
      const project = (await findProjectBySlug(pool, DEMO_PROJECT_SLUG)) ?? (await createProject(pool, DEMO_PROJECT_SLUG, 'Demo'));
      const scope = { projectId: project.id, environmentId: null, environmentName: null };
      const journeys = buildDemoJourneys(Date.now());
      const missing: DemoJourney[] = [];
      for (const journey of journeys) {
        if ((await getJourneyDetail(pool, keyring, scope, journey.journeyId)) === null) missing.push(journey);
      }
      if (missing.length > 0) {
        const key = await createApiKey(pool, keyring, {
          projectSlug: DEMO_PROJECT_SLUG,
          environmentName: DEMO_ENVIRONMENT,
          name: 'demo',
          defaultRetentionDays: config.defaultRetentionDays,
        });
        const app = await buildApp({
          config,
          pool,
          keyring,
          // The in-process server is only asked to ingest: its admin token is never used.
          adminToken: randomBytes(32).toString('hex'),
          logger: pino({ level: 'silent' }),
          metrics: createMetrics(),
          build: readBuildInfo(),
        });
        try {
          for (const journey of missing) {
            const response = await app.inject({
              method: 'POST',
              url: '/v1/events/batch',
              headers: { authorization: `Bearer ${key.apiKey}` },
              payload: { events: journey.events.map((event) => ({ protocolVersion: '0.1', event: { environment: DEMO_ENVIRONMENT, ...event } })) },
            });
            const results = response.statusCode === 202 ? (response.json() as BatchAnswer).data.results : [];
            const refused = results.find((result) => result.status !== 'accepted');
            if (results.length !== journey.events.length || refused) {
              const reason = refused?.error?.code ?? `HTTP ${response.statusCode}`;
              ctx.io.err(`jtrace demo: ingestion refused an event of ${journey.journeyId} (${reason})`);
              return EXIT_FAILED;
            }
          }
        } finally {
          await app.close();
        }
      }
      const { entityType, ...expectation } = DEMO_EXPECTATION;
      await saveExpectation(pool, project.id, entityType, { ...expectation, steps: [...expectation.steps] });
      ctx.io.out(`project ${DEMO_PROJECT_SLUG} (${project.id}): ${missing.length} journeys added, ${journeys.length - missing.length} already there`);
      ctx.io.out(`expectation of ${entityType} saved: every step in order, ${expectation.finalStep} last, within ${expectation.deadlineSeconds} s`);
      for (const journey of journeys) ctx.io.out(`${journey.journeyId}\t${journey.entityId}\t${journey.outcome}`);
      await triageDemoProblems(pool, keyring, project.id, (line) => ctx.io.out(line));
      // The address `npm start` listens on with the same environment; a wildcard host is reached on loopback.
      const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
      serveFix = await offerFixedService(ctx, { pool, keyring, config }, project.id);
      ctx.io.out(`Open the web interface (npm start, then http://${host}:${config.port}/ui/) and sign in with the admin token.`);
      return EXIT_OK;
    });
    if (code === EXIT_OK) await serveFix();
    return code;
  },
};

/**
 * Analyses the demo's journeys now and marks the reformatting of customer.phone at
 * normalize-contact expected (the step does it on purpose), so the problems list shows the real
 * losses beside it: the loss inside normalize-contact and the loss in transit to the worker.
 */
async function triageDemoProblems(pool: Parameters<typeof startAnalyzer>[0]['pool'], keyring: Parameters<typeof startAnalyzer>[0]['keyring'], projectId: string, out: (line: string) => void): Promise<void> {
  const analyzer = startAnalyzer({ pool, keyring, logger: pino({ level: 'silent' }), metrics: createMetrics(), idleMs: 3_600_000, lockRetryMs: 3_600_000 });
  try {
    // Another running server may hold the analyzer's lock: its analyzer stores the same problems.
    for (let round = 0; round < 50 && (await analyzer.drain()) > 0; round++);
  } finally {
    await analyzer.stop();
  }
  const all = { statuses: PROBLEM_STATUSES, kind: null, path: null, service: null, environment: null, release: null, since: null };
  const page = { sort: 'journeys' as const, after: null, limit: 100 };
  const reformatting = (await selectProblems(pool, projectId, { ...all, kind: 'changed', path: 'customer.phone' }, page, new Date()))
    .filter((p) => p.step_name === 'normalize-contact' && !p.in_transit && p.status !== 'expected');
  for (const p of reformatting) await setProblemStatus(pool, projectId, p.id, { status: 'expected' }, new Date(), CLI_ACTOR);
  const problems = (await selectProblems(pool, projectId, all, page, new Date())).map(problemView);
  out(`problems (${problems.length}; jtrace problems ${DEMO_PROJECT_SLUG} --status all):`);
  for (const p of problems) out(`  ${problemLine(p)}`);
}
