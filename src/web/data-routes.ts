// Routes only the web interface has (docs/web-interface.md, "Interface-only routes"). Same
// session, project selection and refusals as the API's copies under /ui/api; each calls one
// exported function of the capability that owns the rule.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireAdminProject, requireReader, type AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { parseQuery } from '../http/query.ts';
import { ACTIVITY_PARAMETERS, journeyActivity, parseActivityParams } from '../query/activity.ts';
import { parseReplayInput } from '../replay/replay-input.ts';
import { previewReplay, type ReplayDeps } from '../replay/replays.ts';

export interface DataRouteDeps {
  /** The session credential context. */
  auth: AuthContext;
  keyring: Keyring;
  replay: ReplayDeps;
}

export function registerInterfaceDataRoutes(api: FastifyInstance, deps: DataRouteDeps): void {
  const url = (request: FastifyRequest) => request.raw.url ?? '';

  // A static path: the router prefers it to /v1/journeys/:journeyId.
  api.get('/v1/journeys/activity', async (request) => {
    const scope = await requireReader(request, deps.auth);
    const params = parseActivityParams(parseQuery(url(request), ACTIVITY_PARAMETERS), deps.auth.now());
    return { data: await journeyActivity({ db: deps.auth.db, keyring: deps.keyring }, scope, params, deps.auth.now()) };
  });

  api.post('/v1/replays/preview', async (request) => {
    const projectId = await requireAdminProject(request, deps.auth);
    parseQuery(url(request), []);
    return { data: await previewReplay(deps.replay, projectId, parseReplayInput(request.body)) };
  });
}
