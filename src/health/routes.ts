import type { FastifyInstance } from 'fastify';
import { defineRoute } from '../http/route-contract.ts';
import type { Pool } from '../db/pool.ts';
import { latestVersion, appliedVersions } from '../db/migrate.ts';
import type { BuildInfo } from './build-info.ts';
import { livenessSchema, readinessSchema } from '../http/answer-schemas/service.ts';

export function registerHealthRoutes(app: FastifyInstance, deps: { pool: Pool; build: BuildInfo }): void {
  const expected = latestVersion();
  const probe = {
    tag: 'health',
    credential: null,
    // The probes take no query and refuse none: load balancers add what they like.
    query: 'ignored',
    errors: ['internal_error'],
  } as const;
  defineRoute(app, {
    method: 'GET',
    url: '/health',
    contract: { ...probe, summary: 'Liveness', answers: { 200: { description: 'The process answers.', schema: livenessSchema } } },
    handler: async () => ({ status: 'ok' }),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/ready',
    contract: {
      ...probe,
      summary: 'Readiness',
      answers: {
        200: { description: 'The database is reachable and migrated.', schema: readinessSchema },
        503: { description: 'database_unavailable or migrations_pending.', schema: readinessSchema },
      },
    },
    handler: async (_request, reply) => {
      const build = { version: deps.build.version, ...(deps.build.commit ? { commit: deps.build.commit } : {}), source: deps.build.source };
      let applied: number[];
      try {
        applied = await appliedVersions(deps.pool);
      } catch {
        return reply.status(503).send({ status: 'not_ready', reason: 'database_unavailable', ...build });
      }
      if ((applied.at(-1) ?? 0) < expected) {
        return reply.status(503).send({ status: 'not_ready', reason: 'migrations_pending', ...build });
      }
      return { status: 'ready', ...build };
    },
  });
}
