import { Readable } from 'node:stream';
import { z } from 'zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createApiKeyLookups, requireApiKey, type AuthContext } from '../auth/credentials.ts';
import { apiKeyBeforeBody } from './credential-first.ts';
import { AppError, ERROR_STATUS, errors } from '../http/errors.ts';
import { dataOf } from '../http/answers.ts';
import { acceptedEventSchema, batchAnswerSchema, dryRunAnswerSchema } from '../http/answer-schemas/ingest.ts';
import { checkDeclaredQuery, defineRoute } from '../http/route-contract.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { dryRunEvents, ingestEvents, type EventResult, type IngestDeps, type IngestScope } from './ingest-service.ts';
import { MAX_BATCH_EVENTS, requestBodyLimitBytes } from '../protocol/limits.ts';
import { coalescingEnabled, createSingleEventCoalescer, ingestCoalesced, type CoalesceSettings } from './coalesce.ts';

/** Media types the body parsers read (src/http/body-parsers.ts); they enforce the body limit themselves. */
// The envelope for the OpenAPI document (event-protocol 2); the hand-written validator of
// src/protocol/envelope.ts checks it (docs/decisions.md, "Validation by hand").
const envelopeSchema = z.object({ protocolVersion: z.literal('0.1'), event: z.object({}).loose() });

const PARSED_MEDIA_TYPE = /^(application\/json|text\/plain)(\s*;.*)?$/i;

function tooLarge(): AppError {
  return new AppError(413, 'payload_too_large', 'The request body is larger than allowed.');
}

function malformed(): AppError {
  return new AppError('malformed_json', 'The body is not valid JSON.');
}

/** Whether a Content-Encoding header names any coding other than identity. */
export function isEncoded(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  return (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .some((coding) => coding !== '' && coding !== 'identity');
}

/** 8.1: the wire shape of one batch result. */
function wireResult(result: EventResult) {
  if (result.status === 'accepted') {
    return {
      eventId: result.eventId,
      status: result.status,
      duplicate: result.duplicate,
      ...(result.stored ? { stored: result.stored } : {}),
    };
  }
  return {
    eventId: result.eventId,
    status: result.status,
    error: {
      code: result.error.code,
      message: result.error.message,
      httpStatus: ERROR_STATUS[result.error.code],
      ...(result.error.details ? { details: result.error.details } : {}),
    },
  };
}

export function registerIngestRoutes(
  app: FastifyInstance,
  deps: IngestDeps & { auth: AuthContext; metrics: Metrics; coalesce?: CoalesceSettings },
): void {
  const bodyLimit = requestBodyLimitBytes(deps.maxEventPayloadBytes);
  // Concurrent requests' key lookups share statements, as their events share transactions.
  const auth: AuthContext = { ...deps.auth, lookups: createApiKeyLookups(deps.auth.db) };
  const coalescer = coalescingEnabled(deps.coalesce)
    ? createSingleEventCoalescer(deps, deps.coalesce, {
        group: (size) => deps.metrics.coalescedGroupEvents.observe(size),
        fallback: () => deps.metrics.coalesceFallbacks.inc(),
      })
    : null;
  if (coalescer !== null) {
    // Waiting events are stored at once, and the pool outlives every group handed over.
    app.addHook('preClose', async () => coalescer.flushAll());
    app.addHook('onClose', async () => coalescer.drain());
  }

  /** Body size is answered before the media type (event protocol 1.5), so check the header first. */
  const checkDeclaredSize = async (request: FastifyRequest) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > bodyLimit) throw tooLarge();
  };

  /**
   * A chunked body of a type no parser reads would get 415 unread; its size is answered first
   * (1.5), so it is counted here. It is never parsed, so nothing of it is kept.
   * (Found by ingest.int.test.ts: such a body over the limit answered 415, not 413.)
   */
  const measureUndeclaredSize = async (request: FastifyRequest, _reply: unknown, payload: NodeJS.ReadableStream) => {
    if (request.headers['content-length'] !== undefined || PARSED_MEDIA_TYPE.test(request.headers['content-type'] ?? '')) {
      return payload;
    }
    let size = 0;
    for await (const chunk of payload) {
      size += chunk.length;
      if (size > bodyLimit) throw tooLarge();
    }
    // 1.2: an empty body without a Content-Type is malformed, whether or not it came chunked.
    if (size === 0 && request.headers['content-type'] === undefined) throw malformed();
    return Readable.from([], { objectMode: false });
  };
  /**
   * A body sent with a Content-Encoding other than identity is 415 at the media-type step
   * (1.5), after its size: read as plain JSON it would be refused for the wrong reason or, for
   * an encoding that leaves JSON intact, accepted. No encoding is decoded (docs/ingestion.md).
   */
  const refuseEncodedBody = async (request: FastifyRequest, _reply: unknown, payload: NodeJS.ReadableStream) => {
    if (!isEncoded(request.headers['content-encoding'])) return payload;
    // A declared size was checked on arrival; an undeclared one is counted, keeping nothing.
    if (request.headers['content-length'] === undefined) {
      let size = 0;
      for await (const chunk of payload) {
        size += chunk.length;
        if (size > bodyLimit) throw tooLarge();
      }
    }
    throw new AppError('unsupported_media_type', 'Content-Encoding is not supported here: send the body unencoded (identity).');
  };
  // The key is checked before the body is read (credential-first.ts); a refused one still
  // answers in the protocol's order, its query string read from the route's contract.
  const bodyOptions = {
    bodyLimit,
    onRequest: checkDeclaredSize,
    preParsing: [refuseEncodedBody, measureUndeclaredSize, apiKeyBeforeBody(auth, bodyLimit, checkDeclaredQuery)],
  };

  const count = (results: EventResult[]) => {
    for (const result of results) {
      const label = result.status === 'rejected' ? 'rejected' : result.duplicate ? 'duplicate' : 'accepted';
      deps.metrics.events.inc({ result: label });
    }
  };

  // Protocol 1.5: body, then query, then key. The key's environment and its capture settings
  // come with the key: one statement, not two.
  const ingestion = {
    tag: 'ingestion',
    credential: async (request: FastifyRequest): Promise<IngestScope> => {
      const principal = await requireApiKey(request, auth);
      return { projectId: principal.projectId, environment: principal.environment };
    },
    security: ['apiKey'],
    queryBeforeCredential: true,
    missingBody: malformed,
  } as const;
  const requestErrors = ['malformed_json', 'invalid_query', 'bad_url', 'unauthorized', 'unsupported_media_type', 'payload_too_large', 'key_superseded', 'internal_error'] as const;
  const eventErrors = [
    'invalid_event', 'unsupported_protocol_version', 'max_depth_exceeded', 'max_keys_exceeded', 'max_string_length_exceeded',
    'unstorable_payload', 'unauthorized_environment', 'event_id_conflict', 'journey_environment_mismatch', 'query_timeout',
  ] as const;
  const contentTypes = ['application/json', 'text/plain'];

  defineRoute(app, {
    method: 'POST',
    url: '/v1/events',
    options: bodyOptions,
    contract: {
      ...ingestion,
      summary: 'Ingest one event',
      query: {},
      body: { schema: envelopeSchema, contentTypes },
      answers: { 202: { description: 'Accepted (or a duplicate of a stored event).', schema: dataOf(acceptedEventSchema) } },
      errors: [...requestErrors, ...eventErrors],
    },
    handler: async (request, reply, { credential: scope }) => {
      const [result] = coalescer !== null
        ? [await ingestCoalesced(deps, coalescer, scope, request.body)]
        : await ingestEvents(deps, scope, [request.body], 'single');
      count([result!]);
      if (result!.status === 'rejected') {
        const { code, message, details } = result!.error;
        if (code === 'database_unavailable') throw errors.databaseUnavailable();
        throw new AppError(code, message, details);
      }
      return reply.status(202).send({
        data: { eventId: result!.eventId, journeyId: result!.journeyId, status: 'accepted', duplicate: result!.duplicate },
      });
    },
  });

  defineRoute(app, {
    method: 'POST',
    url: '/v1/events/batch',
    options: bodyOptions,
    contract: {
      ...ingestion,
      summary: 'Ingest a batch of up to 100 events (or check it with dryRun)',
      query: { dryRun: 'true: validate and report without storing; false or omitted: store.' },
      checkQuery: (query) => {
        if (query.dryRun !== undefined && query.dryRun !== 'true' && query.dryRun !== 'false') {
          throw new AppError('invalid_query', 'dryRun must be true or false.', [{ path: 'dryRun', message: 'must be true or false' }]);
        }
      },
      body: { schema: z.object({ events: z.array(envelopeSchema) }), contentTypes },
      answers: {
        200: { description: 'dryRun: the result each event would get.', schema: dataOf(dryRunAnswerSchema) },
        202: { description: 'One result per event, in order; refused events carry their error.', schema: dataOf(batchAnswerSchema) },
      },
      errors: [...requestErrors, 'invalid_event'],
    },
    handler: async (request, reply, { credential: scope, query }) => {
      const body = request.body as { events?: unknown } | null;
      const events = typeof body === 'object' && body !== null && !Array.isArray(body) ? body.events : undefined;
      if (!Array.isArray(events)) {
        throw new AppError('invalid_event', 'The body must be an object with an events array.', [
          { path: 'events', message: 'must be an array' },
        ]);
      }
      if (events.length > MAX_BATCH_EVENTS) {
        throw new AppError('payload_too_large', `A batch holds at most ${MAX_BATCH_EVENTS} events.`);
      }
      if (query.dryRun === 'true') {
        const results = await dryRunEvents(deps, scope, events);
        return reply.status(200).send({ data: { dryRun: true, results: results.map(wireResult) } });
      }
      const results = await ingestEvents(deps, scope, events, 'batch');
      count(results);
      return reply.status(202).send({ data: { results: results.map(wireResult) } });
    },
  });
}
