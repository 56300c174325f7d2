import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defineRoute } from '../http/route-contract.ts';
import type { Pool } from '../db/pool.ts';
import { latestVersion, appliedVersions } from '../db/migrate.ts';
import type { BuildInfo } from './build-info.ts';

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
    contract: { ...probe, summary: 'Liveness', answers: { 200: { description: 'The process answers.', schema: z.object({ status: z.literal('ok') }) } } },
    handler: async () => ({ status: 'ok' }),
  });

  const readiness = z.object({ status: z.enum(['ready', 'not_ready']), reason: z.string().optional(), version: z.string(), commit: z.string().optional(), source: z.string() });
  defineRoute(app, {
    method: 'GET',
    url: '/ready',
    contract: {
      ...probe,
      summary: 'Readiness',
      answers: {
        200: { description: 'The database is reachable and migrated.', schema: readiness },
        503: { description: 'database_unavailable or migrations_pending.', schema: readiness },
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
