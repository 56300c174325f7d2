import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestBearerToken, requireApiKeyToken, type ApiKeyPrincipal, type AuthContext } from '../auth/credentials.ts';
import { isTransientDatabaseError } from '../db/pool.ts';
import { describeError, errorBody, toAppError } from '../http/error-handler.ts';
import type { AppError } from '../http/errors.ts';
import type { IngestDeps } from '../ingest/ingest-service.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { defineRoute } from '../http/route-contract.ts';
import { z } from 'zod';
import { otlpLogsResponseSchema, otlpTracesResponseSchema } from '../http/answer-schemas/service.ts';
import { exportRecords, partialSuccess, unavailable, type ExportOutcome } from './export.ts';
import { encodeProtobufResponse, encodeStatus, jsonResponse, type Signal } from './otlp-proto.ts';
import { bodyEncoding, bodyFormat, decodeRecords, inflate, tooLarge, type BodyFormat } from './request-body.ts';

export interface OtlpDeps extends IngestDeps {
  auth: AuthContext;
  metrics: Metrics;
  /** OTLP_MAX_REQUEST_BYTES: the cap on the sent body and, again, on the inflated one. */
  maxRequestBytes: number;
}

/** The header OpenTelemetry exporters can be given for the key, beside `Authorization: Bearer`. */
export const API_KEY_HEADER = 'x-service-api-key';

const PROTOBUF = 'application/x-protobuf';

/** google.rpc.Code for each answer, as OTLP/HTTP carries it in the Status body. */
function grpcCode(status: number): number {
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 413) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  if (status >= 500) return 13; // INTERNAL
  return 3; // INVALID_ARGUMENT
}

function isProtobufRequest(request: FastifyRequest): boolean {
  try {
    return bodyFormat(request.headers['content-type']) === 'protobuf';
  } catch {
    return false;
  }
}

/**
 * OTLP/HTTP answers a failure with a Status in the request's encoding. The JSON one also
 * carries jtrace's usual `error` object, so both kinds of client read it.
 */
function sendOtlpError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  reply.status(error.status);
  if (isProtobufRequest(request)) {
    return reply.type(PROTOBUF).send(Buffer.from(encodeStatus(grpcCode(error.status), error.message)));
  }
  return reply.type('application/json').send({ code: grpcCode(error.status), message: error.message, ...errorBody(error, request.id) });
}

function apiKeyToken(request: FastifyRequest): string | null {
  const alternate = request.headers[API_KEY_HEADER];
  if (request.headers.authorization === undefined && typeof alternate === 'string') return alternate.trim();
  return requestBearerToken(request);
}

export function registerOtlpRoutes(app: FastifyInstance, deps: OtlpDeps): void {
  const principals = new WeakMap<FastifyRequest, ApiKeyPrincipal>();

  /** Size, media type, encoding and the key, all before a byte of the body is read. */
  const checkRequest = async (request: FastifyRequest) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > deps.maxRequestBytes) throw tooLarge();
    bodyFormat(request.headers['content-type']);
    bodyEncoding(request.headers['content-encoding']);
    principals.set(request, await requireApiKeyToken(apiKeyToken(request), deps.auth));
  };

  const count = (signal: Signal, outcome: ExportOutcome) => {
    for (const result of ['accepted', 'duplicate', 'rejected', 'skipped'] as const) {
      deps.metrics.otlpRecords.inc({ signal, result }, outcome[result]);
    }
  };

  const handle = (signal: Signal) => async (request: FastifyRequest, reply: FastifyReply, principal: ApiKeyPrincipal) => {
    const format: BodyFormat = bodyFormat(request.headers['content-type']);
    const sent = (request.body as Buffer | undefined) ?? Buffer.alloc(0);
    const bytes = await inflate(sent, bodyEncoding(request.headers['content-encoding']), deps.maxRequestBytes);
    const records = decodeRecords(signal, format, bytes);
    const outcome = await exportRecords(deps, { projectId: principal.projectId, environment: principal.environment }, records);
    count(signal, outcome);
    const partial = partialSuccess(outcome);
    if (format === 'protobuf') return reply.status(200).type(PROTOBUF).send(Buffer.from(encodeProtobufResponse(signal, partial)));
    return reply.status(200).type('application/json').send(jsonResponse(signal, partial));
  };

  // Its own plugin: these body parsers and this error handler apply to the OTLP routes only.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Every accepted type is read as bytes; the handler inflates and decodes after the key check.
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.maxRequestBytes }, (_request, body, done) => done(null, body));
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const appError = isTransientDatabaseError(error) && toAppError(error).status !== 503 ? unavailable() : toAppError(error);
      if (appError.status >= 500) {
        request.log.error({ err: describeError(error) }, 'otlp export failed');
      }
      return sendOtlpError(request, reply, appError);
    });
    for (const signal of ['traces', 'logs'] as const) {
      defineRoute(scope, {
        method: 'POST',
        url: `/v1/${signal}`,
        contract: {
          summary: `Export OpenTelemetry ${signal === 'traces' ? 'spans' : 'log records'} (OTLP/HTTP); those with journey attributes become events`,
          tag: 'otlp',
          // Checked in onRequest, before the body is read; the contract hook takes that result.
          credential: async (request) => principals.get(request)!,
          security: ['apiKey'],
          query: {},
          body: { schema: exportRequestDocument, contentTypes: ['application/x-protobuf', 'application/json'], required: false },
          answers: { 200: { description: 'Export response; partialSuccess when records were refused (docs/otlp.md).', schema: signal === 'traces' ? otlpTracesResponseSchema : otlpLogsResponseSchema } },
          errors: ['invalid_request', 'malformed_json', 'invalid_query', 'unauthorized', 'payload_too_large', 'unsupported_media_type', 'database_unavailable', 'query_timeout', 'key_superseded', 'internal_error'],
        },
        options: { bodyLimit: deps.maxRequestBytes, onRequest: checkRequest },
        handler: (request, reply, { credential }) => handle(signal)(request, reply, credential),
      });
    }
  });
}

/** The OpenAPI document's view of the bodies: OTLP's own messages (opentelemetry-proto), not restated. */
const exportRequestDocument = z.looseObject({}).describe('An OTLP ExportTraceServiceRequest or ExportLogsServiceRequest (protobuf or OTLP JSON).');
