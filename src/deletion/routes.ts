import type { FastifyInstance } from 'fastify';
import { requireAdmin, selectProject, type AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { parseQuery } from '../http/query.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { parseErasureRequest } from './erasure-input.ts';
import { eraseIdentifier, previewErasure } from './erasure.ts';
import { assertDeletableJourneyId, deleteJourney } from './journey-delete.ts';

export interface DeletionRouteDeps {
  auth: AuthContext;
  pool: Pool;
  keyring: Keyring;
}

/**
 * Admin-only deletion routes. Order: credential, query string, input, then project selection,
 * so input the database would refuse is refused before any query of the action (section 7).
 */
export function registerDeletionRoutes(app: FastifyInstance, deps: DeletionRouteDeps): void {
  app.delete<{ Params: { journeyId: string } }>('/v1/journeys/:journeyId', async (request, reply) => {
    await requireAdmin(request, deps.auth);
    parseQuery(request.raw.url ?? '', []);
    assertDeletableJourneyId(request.params.journeyId);
    const projectId = await selectProject(request, deps.auth.db);
    await deleteJourney(deps.pool, projectId, request.params.journeyId);
    return reply.status(204).send();
  });

  app.post('/v1/erasures', async (request) => {
    await requireAdmin(request, deps.auth);
    parseQuery(request.raw.url ?? '', []);
    const input = parseErasureRequest(request.body);
    const projectId = await selectProject(request, deps.auth.db);
    if (input.dryRun === true) {
      const preview = await previewErasure(deps, projectId, input);
      const journeys = preview.journeys.map((j) => ({ ...j, lastEventAt: formatTimestamp(j.lastEventAt.getTime()) }));
      return { data: { journeys, total: preview.total } };
    }
    const onStoppedEarly = (errorType: string) => request.log.warn({ err: { type: errorType } }, 'erasure stopped part way');
    return { data: await eraseIdentifier({ ...deps, onStoppedEarly }, projectId, input) };
  });
}
