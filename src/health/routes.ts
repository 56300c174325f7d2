import type { FastifyInstance } from 'fastify';
import type { Pool } from '../db/pool.ts';
import { latestVersion, appliedVersions } from '../db/migrate.ts';
import type { BuildInfo } from './build-info.ts';

export function registerHealthRoutes(app: FastifyInstance, deps: { pool: Pool; build: BuildInfo }): void {
  const expected = latestVersion();
  app.get('/health', async () => ({ status: 'ok' }));

  app.get('/ready', async (_request, reply) => {
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
  });
}
