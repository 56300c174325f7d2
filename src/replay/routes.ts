import type { FastifyInstance } from 'fastify';
import { adminBeforeBody, requestActor, requireAdminProject, type AuthContext } from '../auth/credentials.ts';
import { dataOf, itemsOf } from '../http/answers.ts';
import { destinationListItemSchema, destinationSchema, replayRunSchema, urlCheckSchema } from '../http/answer-schemas/replay.ts';
import { invalidBody, issueDetails } from '../http/body-fields.ts';
import { errors } from '../http/errors.ts';
import { defineRoute, JSON_BODY_ERRORS } from '../http/route-contract.ts';
import { destinationBodySchema, parseNewDestination } from './destination-input.ts';
import { destinationPatchSchema, parseDestinationPatch, updateDestination } from './destination-edit.ts';
import { checkBaseUrl, urlCheckBodySchema } from './url-check.ts';
import { classifyDestinationId, createDestination, deleteDestination, listDestinations } from './destinations.ts';
import { parseReplayInput, replayBodySchema } from './replay-input.ts';
import { createReplay, getReplay, type ReplayDeps } from './replays.ts';

export interface ReplayRouteDeps extends ReplayDeps {
  auth: AuthContext;
}

/** Every replay route is admin-only (section 4); the credential is checked before the body. */
export function registerReplayRoutes(app: FastifyInstance, deps: ReplayRouteDeps): void {
  const admin = {
    tag: 'replay',
    credential: (request: Parameters<typeof requireAdminProject>[0]) => requireAdminProject(request, deps.auth),
    security: ['adminToken'],
    query: {},
  } as const;
  const adminErrors = ['unauthorized', 'forbidden', 'too_many_attempts', 'project_not_found', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'] as const;
  const bodyErrors = JSON_BODY_ERRORS;

  defineRoute(app, {
    method: 'POST',
    // The credential is checked before any body is read (docs/hostile-input.md).
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/replay-destinations',
    contract: {
      ...admin,
      summary: 'Create a replay destination',
      body: { schema: destinationBodySchema },
      answers: { 201: { description: 'The destination; header values are never returned.', schema: dataOf(destinationSchema) } },
      errors: [...adminErrors, ...bodyErrors, 'invalid_environment_type', 'key_superseded'],
    },
    handler: async (request, reply, { credential: projectId }) => {
      if (request.body === undefined) throw errors.invalidRequest('', 'The request needs a JSON body.');
      const destination = await createDestination(deps.pool, deps.keyring, projectId, parseNewDestination(request.body), await requestActor(request, deps.auth));
      return reply.status(201).send({ data: destination });
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/replay-destinations',
    contract: {
      ...admin,
      summary: 'List replay destinations',
      // Opt-in, so the spec's item shape is unchanged for every client that does not ask.
      query: { include: 'runCount: each item also carries the number of replay runs a delete would remove.' },
      answers: { 200: { description: 'The destinations of the project.', schema: dataOf(itemsOf(destinationListItemSchema)) } },
      errors: adminErrors,
    },
    handler: async (_request, _reply, { credential: projectId, query }) => {
      if (query.include !== undefined && query.include !== 'runCount') throw errors.invalidQuery('include', 'include must be runCount.');
      return { data: { items: await listDestinations(deps.pool, projectId, query.include === 'runCount') } };
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    // The credential is checked before any body is read (docs/hostile-input.md).
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/replay-destinations/:destinationId',
    contract: {
      ...admin,
      summary: 'Delete a replay destination',
      answers: { 204: { description: 'Deleted.' } },
      errors: [...adminErrors, 'invalid_request', 'not_found', 'parameter_too_long'],
    },
    handler: async (request, reply, { credential: projectId }) => {
      const id = (request.params as { destinationId: string }).destinationId;
      const kind = classifyDestinationId(id);
      if (kind === 'invalid') {
        throw errors.invalidRequest('destinationId', 'The destination id holds a NUL character or is longer than 512 characters.');
      }
      const deleted = kind === 'uuid' ? await deleteDestination(deps.pool, projectId, id.toLowerCase(), await requestActor(request, deps.auth)) : null;
      if (deleted === null) throw errors.notFound('The replay destination was not found.');
      return reply.status(204).send();
    },
  });

  defineRoute(app, {
    method: 'PATCH',
    // The credential is checked before any body is read (docs/hostile-input.md).
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/replay-destinations/:destinationId',
    contract: {
      ...admin,
      summary: 'Edit a replay destination (name, base URL, headers as a merge patch, disabled)',
      body: { schema: destinationPatchSchema },
      answers: { 200: { description: 'The destination as edited; header values are never returned.', schema: dataOf(destinationSchema) } },
      errors: [...adminErrors, ...bodyErrors, 'not_found', 'parameter_too_long', 'key_superseded'],
    },
    handler: async (request, _reply, { credential: projectId }) => {
      const id = (request.params as { destinationId: string }).destinationId;
      if (classifyDestinationId(id) === 'invalid') {
        throw errors.invalidRequest('destinationId', 'The destination id holds a NUL character or is longer than 512 characters.');
      }
      if (request.body === undefined) throw errors.invalidRequest('', 'The request needs a JSON body.');
      const patch = parseDestinationPatch(request.body);
      const edited = await updateDestination(deps.pool, deps.keyring, projectId, id.toLowerCase(), patch, await requestActor(request, deps.auth));
      if (edited === null) throw errors.notFound('The replay destination was not found.');
      return { data: edited };
    },
  });

  defineRoute(app, {
    method: 'POST',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/replay-destinations/url-check',
    contract: {
      ...admin,
      summary: 'Check a base URL against the replay URL policy without storing anything',
      body: { schema: urlCheckBodySchema },
      answers: { 200: { description: 'The problems a create or edit would refuse it for, and whether its host is allowed.', schema: dataOf(urlCheckSchema) } },
      errors: [...adminErrors, ...bodyErrors],
    },
    handler: async (request, _reply) => {
      if (request.body === undefined) throw errors.invalidRequest('', 'The request needs a JSON body.');
      const parsed = urlCheckBodySchema.safeParse(request.body);
      if (!parsed.success) throw invalidBody(issueDetails(parsed.error.issues));
      return { data: checkBaseUrl(parsed.data.baseUrl, deps.allowedHosts) };
    },
  });

  defineRoute(app, {
    method: 'POST',
    // The credential is checked before any body is read (docs/hostile-input.md).
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/replays',
    contract: {
      ...admin,
      summary: 'Replay a stored event to a destination',
      body: { schema: replayBodySchema },
      // A blocked run is stored and shown, but the replay did not happen: 422 (section 4).
      answers: {
        200: { description: 'The replay run: the destination was reached or the request failed.', schema: dataOf(replayRunSchema) },
        422: { description: 'The run, stored as blocked; nothing was sent.', schema: dataOf(replayRunSchema) },
      },
      errors: [...adminErrors, ...bodyErrors, 'not_found', 'no_captured_input', 'destination_disabled'],
    },
    handler: async (request, reply, { credential: projectId }) => {
      const run = await createReplay(deps, projectId, parseReplayInput(request.body));
      return reply.status(run.status === 'blocked' ? 422 : 200).send({ data: run });
    },
  });

  defineRoute(app, {
    method: 'GET',
    url: '/v1/replays/:replayId',
    contract: { ...admin, summary: 'Get a replay run', answers: { 200: { description: 'The replay run.', schema: dataOf(replayRunSchema) } }, errors: [...adminErrors, 'not_found'] },
    handler: async (request, _reply, { credential: projectId }) => {
      const run = await getReplay(deps.pool, projectId, (request.params as { replayId: string }).replayId);
      if (run === null) throw errors.notFound('The replay was not found.');
      return { data: run };
    },
  });
}
