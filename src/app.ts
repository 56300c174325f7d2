import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AuthContext } from './auth/credentials.ts';
import { VerifiedApiKeys } from './auth/verified-api-keys.ts';
import type { Config, InstanceRole } from './config/config.ts';
import type { Keyring } from './crypto/keyring.ts';
import type { Pool } from './db/pool.ts';
import type { ReadReplica } from './db/read-replica.ts';
import { registerReadRouting, type StaleReads } from './http/read-routing.ts';
import { registerHealthRoutes } from './health/routes.ts';
import type { BuildInfo } from './health/build-info.ts';
import { registerBodyParsers } from './http/body-parsers.ts';
import { boundPipelinedRequests, closeStalledWriters, refuseMissingHost } from './http/connection-guards.ts';
import { clientErrorHandler, registerErrorHandling, sendError, toAppError } from './http/error-handler.ts';
import { DEFAULT_HTTP_LIMITS, DEFAULT_WRITE_TIMEOUT_MS, type HttpLimits } from './config/http-limits.ts';
import { resolveClientAddress, throttleKey } from './http/client-address.ts';
import { AppError, errors } from './http/errors.ts';
import { assertWellEncodedUrl, rawQueryString } from './http/query.ts';
import { FailedCredentialThrottle } from './http/throttle.ts';
import { registerOpenApi } from './http/openapi.ts';
import { enforceRouteContract, trackRoutes } from './http/route-contract.ts';
import { methodLabel, type Metrics } from './metrics/metrics.ts';
import { registerProjectRoutes } from './project-settings/routes.ts';
import { registerIngestRoutes } from './ingest/routes.ts';
import { commonTrigramSource } from './query/common-trigrams.ts';
import { registerReadRoutes } from './query/routes.ts';
import { registerForensicsRoutes } from './forensics/routes.ts';
import { createWorkQueue } from './forensics/fair-queue.ts';
import { registerDeletionRoutes } from './deletion/routes.ts';
import { registerReplayRoutes } from './replay/routes.ts';
import { registerOtlpRoutes } from './otlp/routes.ts';
import { registerApiKeyRoutes } from './auth/api-key-routes.ts';
import { registerInvitationRoutes } from './teams/invitation-routes.ts';
import { registerTeamRoutes } from './teams/routes.ts';
import type { ReplayDeps } from './replay/replays.ts';
import { registerWebInterface } from './web/web-interface.ts';
import { registerAlertRoutes } from './alerts/routes.ts';
import { registerAuditTrailRoutes } from './audit-trail/routes.ts';
import { registerSettingsRoutes } from './project-settings/settings-routes.ts';
import { registerInstanceRoutes } from './instance/routes.ts';
import { registerFindingsRoutes } from './findings/routes.ts';
import { registerProblemRoutes } from './problems/routes.ts';
import { registerProblemReplayRoutes } from './problem-replay/routes.ts';
import { microsFromMillis, systemMicros } from './ingest/received-clock.ts';
import { createStatisticsWarmup } from './ingest/statistics-warmup.ts';
import { createKeyFreshness } from './rotation/key-mismatch.ts';

export interface AppDeps {
  config: Config;
  pool: Pool;
  keyring: Keyring;
  /** The resolved admin token (configured or generated in embedded mode). */
  adminToken: string;
  logger: Logger;
  metrics: Metrics;
  build: BuildInfo;
  /** Milliseconds since the epoch; tests pass their own clock. */
  now?: () => number;
  /** Timeouts and connection cap; the defaults when omitted. */
  httpLimits?: HttpLimits;
  /** The built web interface (web/dist); absent: its pages answer 503. */
  webRoot?: string;
  /** How long a batch's preparation runs before it hands the event loop back (ingest-service's default when omitted). */
  ingestPrepareSliceMs?: number;
  /** DATABASE_READ_URL's standby and its lag sampler (started by the caller); absent: every read on the primary. */
  readReplica?: ReadReplica;
}

/** Longest encoded path parameter the API accepts (section 8): longer is 414. */
export const MAX_PATH_PARAMETER_LENGTH = 1152;
/** Default body limit of non-ingestion routes, in bytes. */
const DEFAULT_BODY_LIMIT = 1_048_576;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const urlRefusals = new WeakSet<object>();
  const limits = deps.httpLimits ?? DEFAULT_HTTP_LIMITS;
  const app = Fastify({
    http: {
      headersTimeout: limits.headersTimeoutMs,
      // Answered by refuseMissingHost in the spec's error shape instead of Node's bare 400.
      requireHostHeader: false,
      // Node checks the timeouts on this period (30 s by default): often enough to close in time.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    clientErrorHandler: clientErrorHandler(deps.logger as FastifyBaseLogger, (status) =>
      deps.metrics.httpRequests.inc({ method: 'other', route: 'unmatched', status: String(status) }),
    ),
    loggerInstance: deps.logger as FastifyBaseLogger,
    // One line per request is written by the onResponse hook instead.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Refused by the shutdown hook below instead, in the error shape and with Retry-After.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    frameworkErrors: (error, request, reply) => {
      // URL refusals happen before routing and skip the response hooks: count them here.
      const appError = toAppError(error);
      deps.metrics.httpRequests.inc({ method: methodLabel(request.method), route: 'unmatched', status: String(appError.status) });
      deps.metrics.httpDuration.observe({ method: methodLabel(request.method), route: 'unmatched' }, reply.elapsedTime / 1000);
      void sendError(reply, appError);
    },
  });

  app.server.maxConnections = limits.maxConnections;
  // Anyone can provoke these closures: debug, as client aborts (docs/hostile-input.md).
  const stopWriteChecks = closeStalledWriters(app.server, limits.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS, () =>
    deps.logger.debug('answers not read within the write timeout: connection closed'),
  );
  app.addHook('onClose', async () => stopWriteChecks());

  trackRoutes(app);
  // Search, lists, the activity chart, findings summaries and the audit log may read a replica in
  // sync; without one each route reads where it always did.
  const staleReads: StaleReads | undefined = deps.readReplica
    ? registerReadRouting(app, { replica: deps.readReplica, maxLagMs: deps.config.readReplicaMaxLagMs, now: deps.now ?? Date.now })
    : undefined;
  const readReplica = deps.readReplica;
  if (readReplica) deps.metrics.setReadReplicaState(() => readReplica.state());
  registerBodyParsers(app);
  registerErrorHandling(app);

  // From close() on, requests still arriving on open keep-alive connections are answered 503
  // shutting_down with Retry-After and Connection: close, so the client or proxy goes elsewhere.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw errors.shuttingDown();
  });
  app.addHook('onRequest', boundPipelinedRequests);
  app.addHook('onRequest', refuseMissingHost);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Route match comes first (event protocol 1.5): an unknown route is 404 whatever its query.
    if (request.routeOptions.url === undefined) return;
    try {
      const rawUrl = request.raw.url ?? '';
      assertWellEncodedUrl(rawQueryString(rawUrl));
      // The limit counts encoded characters; the router measures decoded ones.
      if (rawUrl.split('?')[0]!.split('/').some((segment) => segment.length > MAX_PATH_PARAMETER_LENGTH)) {
        throw toAppError({ code: 'FST_ERR_MAX_PARAM_LENGTH' });
      }
    } catch (error) {
      urlRefusals.add(request.raw);
      throw error;
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = urlRefusals.has(request.raw) ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    const durationSeconds = reply.elapsedTime / 1000;
    const method = methodLabel(request.method);
    deps.metrics.httpRequests.inc({ method, route, status: String(reply.statusCode) });
    deps.metrics.httpDuration.observe({ method, route }, durationSeconds);
    // One line per request; never the query string, headers or body. The client is the address
    // the credential throttle counts (X-Forwarded-For only with TRUSTED_PROXY_COUNT).
    request.log.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime),
        requestId: request.id,
        client: clientAddress(request.raw),
      },
      'request',
    );
  });

  app.addHook('onError', async (request, _reply, error) => {
    if (toAppError(error).code === 'query_timeout') {
      deps.metrics.queryTimeouts.inc({ route: request.routeOptions.url ?? 'unmatched' });
    }
  });

  // Every route declares a contract; this one hook applies its order and query-string rules.
  app.addHook('preHandler', enforceRouteContract);
  // A route outside this instance's roles is not registered, so it answers 404 in the error shape
  // and a proxy can route by path (docs/deployment.md).
  const serves = (role: InstanceRole) => deps.config.roles.includes(role);
  await registerOpenApi(app, { serveDocument: serves('api') });

  const auth: AuthContext = {
    db: deps.pool,
    keyring: deps.keyring,
    adminToken: deps.adminToken,
    throttle: new FailedCredentialThrottle({
      onTransition: (transition, key) =>
        deps.logger.warn({ client: key }, transition === 'locked' ? 'credential throttle locked an address' : 'credential throttle unlocked an address'),
    }),
    trustedProxyCount: deps.config.trustedProxyCount,
    now: deps.now ?? Date.now,
    sessionLimits: { idleMinutes: deps.config.sessionIdleMinutes, maxHours: deps.config.sessionMaxHours },
    verifiedKeys: new VerifiedApiKeys(),
  };

  function clientAddress(raw: IncomingMessage): string {
    const forwarded = raw.headers['x-forwarded-for'];
    return throttleKey(
      resolveClientAddress(raw.socket.remoteAddress ?? '', Array.isArray(forwarded) ? forwarded.join(',') : forwarded, deps.config.trustedProxyCount),
    );
  }

  registerHealthRoutes(app, { pool: deps.pool, build: deps.build });
  const ingestDeps = {
    pool: deps.pool,
    keyring: deps.keyring,
    logger: deps.logger,
    micros: deps.now ? microsFromMillis(deps.now) : systemMicros,
    allowFullPayloadCapture: deps.config.allowFullPayloadCapture,
    maxEventPayloadBytes: deps.config.maxEventPayloadBytes,
    warmup: createStatisticsWarmup(deps.pool, deps.logger),
    keyFreshness: createKeyFreshness(deps.pool, deps.keyring),
    ...(deps.ingestPrepareSliceMs === undefined ? {} : { prepareSliceMs: deps.ingestPrepareSliceMs }),
  };
  if (serves('ingest')) registerIngestRoutes(app, {
    ...ingestDeps,
    auth,
    metrics: deps.metrics,
    coalesce: { maxWaitMs: deps.config.ingestCoalesceMaxWaitMs, maxEvents: deps.config.ingestCoalesceMaxEvents },
  });
  if (serves('ingest') && deps.config.otlpEnabled) {
    registerOtlpRoutes(app, { ...ingestDeps, auth, metrics: deps.metrics, maxRequestBytes: deps.config.otlpMaxRequestBytes });
  }
  const replay: ReplayDeps = {
    pool: deps.pool,
    keyring: deps.keyring,
    allowedHosts: deps.config.replayAllowedHosts ?? [],
    version: deps.build.version,
    now: deps.now ?? Date.now,
  };
  // One queue of forensic work per process, whichever prefix a request came through.
  const forensicWork = createWorkQueue();
  // One reading of the trigram statistics per process, for the list and the activity chart of both prefixes.
  const commonTrigrams = commonTrigramSource(deps.pool);
  // The same registrations serve /v1 (bearer credentials) and /ui/api/v1 (the session cookie).
  const registerApiRoutes = (scope: FastifyInstance, scopeAuth: AuthContext) => {
    registerProjectRoutes(scope, scopeAuth);
    registerReadRoutes(scope, { auth: scopeAuth, pool: deps.pool, keyring: deps.keyring, commonTrigrams, staleReads });
    registerForensicsRoutes(scope, { auth: scopeAuth, pool: deps.pool, keyring: deps.keyring, work: forensicWork });
    registerDeletionRoutes(scope, { auth: scopeAuth, pool: deps.pool, keyring: deps.keyring });
    registerReplayRoutes(scope, { ...replay, auth: scopeAuth });
    registerFindingsRoutes(scope, { auth: scopeAuth, pool: deps.pool, metrics: deps.metrics, staleReads });
    registerProblemRoutes(scope, { auth: scopeAuth, pool: deps.pool });
    registerProblemReplayRoutes(scope, { auth: scopeAuth, pool: deps.pool });
    registerAlertRoutes(scope, { auth: scopeAuth, keyring: deps.keyring, allowedHosts: deps.config.alertAllowedHosts ?? [], version: deps.build.version });
    registerTeamRoutes(scope, { auth: scopeAuth, pool: deps.pool, keyring: deps.keyring });
    registerInvitationRoutes(scope, { auth: scopeAuth, pool: deps.pool });
    registerApiKeyRoutes(scope, { auth: scopeAuth, pool: deps.pool, keyring: deps.keyring, defaultRetentionDays: deps.config.defaultRetentionDays });
    registerAuditTrailRoutes(scope, { auth: scopeAuth, staleReads });
    registerSettingsRoutes(scope, { auth: scopeAuth, pool: deps.pool, keyring: deps.keyring, allowFullPayloadCapture: deps.config.allowFullPayloadCapture, maxEventPayloadBytes: deps.config.maxEventPayloadBytes, defaultRetentionDays: deps.config.defaultRetentionDays });
    registerInstanceRoutes(scope, { auth: scopeAuth, pool: deps.pool, keyring: deps.keyring, build: deps.build, otlpEnabled: deps.config.otlpEnabled, allowFullPayloadCapture: deps.config.allowFullPayloadCapture });
  };
  if (!serves('api')) return app;
  registerApiRoutes(app, auth);
  await registerWebInterface(app, {
    auth,
    metrics: deps.metrics,
    keyring: deps.keyring,
    replay,
    commonTrigrams,
    staleReads,
    webRoot: deps.webRoot ?? null,
    oidc: deps.config.oidc,
    registerApiRoutes,
    // Without DATABASE_URL the entry point runs the embedded database: a laptop, not a deployment.
    origins: { publicOrigin: deps.config.publicOrigin, embedded: deps.config.databaseUrl === null },
  });

  return app;
}

export { AppError };
