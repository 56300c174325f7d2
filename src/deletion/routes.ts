import type { FastifyInstance } from 'fastify';
import { adminBeforeBody, requestActor, requireAdmin, selectProject, type AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { z } from 'zod';
import { dataOf } from '../http/answers.ts';
import { erasurePreviewSchema, erasureResultSchema } from '../http/answer-schemas/deletion.ts';
import { defineRoute } from '../http/route-contract.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { erasureRequestSchema, parseErasureRequest } from './erasure-input.ts';
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
  const admin = {
    tag: 'deletion',
    credential: (request: Parameters<typeof requireAdmin>[0]) => requireAdmin(request, deps.auth),
    security: ['adminToken'],
    query: {},
  } as const;
  const adminErrors = ['unauthorized', 'forbidden', 'too_many_attempts', 'project_not_found', 'invalid_query', 'invalid_request', 'bad_url', 'query_timeout', 'internal_error'] as const;

  defineRoute(app, {
    method: 'DELETE',
    // The credential is checked before any body is read (docs/hostile-input.md).
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/journeys/:journeyId',
    contract: {
      ...admin,
      summary: 'Delete a journey with its events',
      answers: { 204: { description: 'Deleted.' } },
      errors: [...adminErrors, 'not_found', 'parameter_too_long'],
    },
    handler: async (request, reply) => {
      const { journeyId } = request.params as { journeyId: string };
      assertDeletableJourneyId(journeyId);
      const projectId = await selectProject(request, deps.auth);
      await deleteJourney(deps.pool, projectId, journeyId, await requestActor(request, deps.auth));
      return reply.status(204).send();
    },
  });

  defineRoute(app, {
    method: 'POST',
    // The credential is checked before any body is read (docs/hostile-input.md).
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/erasures',
    contract: {
      ...admin,
      summary: 'Erase every journey of an identifier (or preview with dryRun)',
      body: { schema: erasureRequestSchema },
      answers: { 200: { description: 'The erasure result, or with dryRun the matching journeys.', schema: dataOf(z.union([erasureResultSchema, erasurePreviewSchema])) } },
      errors: [...adminErrors, 'environment_not_found', 'malformed_json', 'unsupported_media_type', 'payload_too_large', 'key_superseded'],
    },
    handler: async (request) => {
      const input = parseErasureRequest(request.body);
      const projectId = await selectProject(request, deps.auth);
      if (input.dryRun === true) {
        const preview = await previewErasure(deps, projectId, input);
        const journeys = preview.journeys.map((j) => ({ ...j, lastEventAt: formatTimestamp(j.lastEventAt.getTime()) }));
        return { data: { journeys, total: preview.total, ...(preview.forms !== undefined ? { forms: preview.forms } : {}) } };
      }
      const onStoppedEarly = (errorType: string) => request.log.warn({ err: { type: errorType } }, 'erasure stopped part way');
      const actor = await requestActor(request, deps.auth);
      return { data: await eraseIdentifier({ ...deps, onStoppedEarly, actor }, projectId, input) };
    },
  });
}
