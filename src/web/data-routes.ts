// Routes only the web interface has (docs/web-interface.md, "Interface-only routes"). Same
// session, project selection and refusals as the API's copies under /ui/api; each calls one
// exported function of the capability that owns the rule.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireAdminProject, requireReader, type AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { errors } from '../http/errors.ts';
import { parseQuery } from '../http/query.ts';
import { readDiff } from '../forensics/read-diff.ts';
import { getEventDetail } from '../query/details.ts';
import { ACTIVITY_PARAMETERS, journeyActivity, parseActivityParams } from '../query/activity.ts';
import { parseReplayInput } from '../replay/replay-input.ts';
import { previewReplay, type ReplayDeps } from '../replay/replays.ts';

export interface DataRouteDeps {
  /** The session credential context. */
  auth: AuthContext;
  keyring: Keyring;
  replay: ReplayDeps;
}

/** Longest event id there is (event protocol 2.2); a longer or NUL-holding path id is not found. */
const MAX_EVENT_ID_CODE_POINTS = 128;

export function registerInterfaceDataRoutes(api: FastifyInstance, deps: DataRouteDeps): void {
  const url = (request: FastifyRequest) => request.raw.url ?? '';

  // A static path: the router prefers it to /v1/journeys/:journeyId.
  api.get('/v1/journeys/activity', async (request) => {
    const scope = await requireReader(request, deps.auth);
    const params = parseActivityParams(parseQuery(url(request), ACTIVITY_PARAMETERS), deps.auth.now());
    return { data: await journeyActivity({ db: deps.auth.db, keyring: deps.keyring }, scope, params, deps.auth.now()) };
  });

  // The field-level diff of the event's stored input against its stored output, lost values
  // first and renamed keys paired (src/forensics/read-diff.ts).
  api.get<{ Params: { eventId: string } }>('/v1/events/:eventId/diff', async (request) => {
    const scope = await requireReader(request, deps.auth);
    parseQuery(url(request), []);
    const id = request.params.eventId;
    const readable = !id.includes('\u0000') && [...id].length <= MAX_EVENT_ID_CODE_POINTS;
    const event = readable ? await getEventDetail(deps.auth.db, deps.keyring, scope, id) : null;
    if (!event) throw errors.notFound('The event was not found.');
    // Without both payloads stored there is nothing to compare (capture mode, or no output).
    if (!event.hasInput || !event.hasOutput) return { data: { comparable: false, rows: [], truncated: false } };
    return { data: { comparable: true, ...readDiff(event.inputPayload, event.outputPayload) } };
  });

  api.post('/v1/replays/preview', async (request) => {
    const projectId = await requireAdminProject(request, deps.auth);
    parseQuery(url(request), []);
    return { data: await previewReplay(deps.replay, projectId, parseReplayInput(request.body)) };
  });
}
