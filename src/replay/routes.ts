import type { FastifyInstance } from 'fastify';
import { adminBeforeBody, requireAdminProject, type AuthContext } from '../auth/credentials.ts';
import { errors } from '../http/errors.ts';
import { parseQuery } from '../http/query.ts';
import { parseNewDestination } from './destination-input.ts';
import { classifyDestinationId, createDestination, deleteDestination, listDestinations } from './destinations.ts';
import { parseReplayInput } from './replay-input.ts';
import { createReplay, getReplay, type ReplayDeps } from './replays.ts';

export interface ReplayRouteDeps extends ReplayDeps {
  auth: AuthContext;
}

/** Every replay route is admin-only (section 4); the credential is checked before the body. */
export function registerReplayRoutes(app: FastifyInstance, deps: ReplayRouteDeps): void {
  const url = (raw: string | undefined) => raw ?? '';
  const credentialFirst = { preParsing: adminBeforeBody(deps.auth) };

  app.post('/v1/replay-destinations', credentialFirst, async (request, reply) => {
    const projectId = await requireAdminProject(request, deps.auth);
    parseQuery(url(request.raw.url), []);
    if (request.body === undefined) throw errors.invalidRequest('', 'The request needs a JSON body.');
    const input = parseNewDestination(request.body);
    const destination = await createDestination(deps.pool, deps.keyring, projectId, input);
    return reply.status(201).send({ data: destination });
  });

  app.get('/v1/replay-destinations', async (request) => {
    const projectId = await requireAdminProject(request, deps.auth);
    parseQuery(url(request.raw.url), []);
    return { data: { items: await listDestinations(deps.pool, projectId) } };
  });

  app.delete<{ Params: { destinationId: string } }>('/v1/replay-destinations/:destinationId', credentialFirst, async (request, reply) => {
    const projectId = await requireAdminProject(request, deps.auth);
    parseQuery(url(request.raw.url), []);
    const id = request.params.destinationId;
    const kind = classifyDestinationId(id);
    if (kind === 'invalid') {
      throw errors.invalidRequest('destinationId', 'The destination id holds a NUL character or is longer than 512 characters.');
    }
    const deleted = kind === 'uuid' ? await deleteDestination(deps.pool, projectId, id.toLowerCase()) : null;
    if (deleted === null) throw errors.notFound('The replay destination was not found.');
    return reply.status(204).send();
  });

  app.post('/v1/replays', credentialFirst, async (request, reply) => {
    const projectId = await requireAdminProject(request, deps.auth);
    parseQuery(url(request.raw.url), []);
    const input = parseReplayInput(request.body);
    const run = await createReplay(deps, projectId, input);
    // A blocked run is stored and shown, but the replay did not happen: 422 (section 4).
    return reply.status(run.status === 'blocked' ? 422 : 200).send({ data: run });
  });

  app.get<{ Params: { replayId: string } }>('/v1/replays/:replayId', async (request) => {
    const projectId = await requireAdminProject(request, deps.auth);
    parseQuery(url(request.raw.url), []);
    const run = await getReplay(deps.pool, projectId, request.params.replayId);
    if (run === null) throw errors.notFound('The replay was not found.');
    return { data: run };
  });
}
