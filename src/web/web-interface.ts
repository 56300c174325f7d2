import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { describeError, sendError } from '../http/error-handler.ts';
import { AppError, errors } from '../http/errors.ts';
import type { ReplayDeps } from '../replay/replays.ts';
import type { StaleReads } from '../http/read-routing.ts';
import type { CommonTrigramSource } from '../query/common-trigrams.ts';
import { registerInterfaceDataRoutes } from './data-routes.ts';
import { defineRoute } from '../http/route-contract.ts';
import { pageContract, registerPages } from './pages.ts';
import { isAllowedOrigin, type OriginPolicy } from './request-origin.ts';
import { readPrincipal, registerSessionRoutes, type SessionDeps } from './session.ts';
import { deriveSessionKey } from './session-token.ts';
import { registerOidcRoutes, registerSignInOptions } from './oidc-routes.ts';
import type { OidcConfig } from '../config/config.ts';
import type { Metrics } from '../metrics/metrics.ts';

export interface WebInterfaceDeps {
  auth: AuthContext;
  metrics: Metrics;
  /** The built front end (web/dist); null or a missing folder: pages answer 503. */
  webRoot: string | null;
  keyring: Keyring;
  replay: ReplayDeps;
  commonTrigrams: CommonTrigramSource;
  /** Where the activity chart reads (src/http/read-routing.ts); the primary when absent. */
  staleReads?: StaleReads;
  /** Single sign-on, when configured. */
  oidc: OidcConfig | null;
  /** Registers the API's route registrations on a scope with the given credential context. */
  registerApiRoutes: (scope: FastifyInstance, auth: AuthContext) => void;
  /** PUBLIC_URL's origin (null when unset) and whether the database is embedded. */
  origins: Omit<OriginPolicy, 'trustedProxyCount'>;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

// Without 'unsafe-inline': scripts and style sheets run only with this response's nonce (added
// by @fastify/helmet to script-src and style-src) or from the server itself.
const CSP_DIRECTIVES = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'object-src': ["'none'"],
};

/**
 * The web interface under /ui: pages, built assets, the session routes and, under /ui/api, the
 * API's own routes with the session cookie as the credential (docs/web-interface.md).
 */
export async function registerWebInterface(app: FastifyInstance, deps: WebInterfaceDeps): Promise<void> {
  defineRoute(app, {
    method: 'GET',
    url: '/',
    contract: pageContract('Redirect to the web interface', { 302: { description: 'Location: /ui/' } }),
    handler: async (_request, reply) => reply.redirect('/ui/', 302),
  });

  await app.register(
    async (ui) => {
      await ui.register(fastifyCookie, { hook: 'onRequest' });
      await ui.register(fastifyHelmet, {
        enableCSPNonces: true,
        contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
        referrerPolicy: { policy: 'no-referrer' },
        frameguard: { action: 'deny' },
        // HSTS is the TLS terminator's decision: jtrace itself may be served over plain http.
        strictTransportSecurity: false,
      });

      await ui.register(async (dynamic) => {
        dynamic.addHook('onRequest', async (_request, reply) => {
          reply.header('cache-control', 'no-store');
        });
        registerPages(dynamic, deps.webRoot);
        await dynamic.register(async (api) => registerUiApi(api, deps), { prefix: '/api' });
      });

      if (deps.webRoot !== null) {
        const webRoot = deps.webRoot;
        await ui.register(async (assets) => registerAssets(assets, webRoot));
      }
    },
    { prefix: '/ui' },
  );
}

/**
 * The built assets. Their requests are not logged (a page load fetches several). A path that
 * cannot name an asset (`..`, an encoded NUL, a dot segment) is refused by the file sender with
 * a 4xx error of its own: it answers 404 as any unknown resource; anything else is a 500 logged
 * on this scope's logger, which is not silenced.
 */
async function registerAssets(assets: FastifyInstance, webRoot: string): Promise<void> {
  assets.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendError(reply, errors.notFound('No such asset.'));
    }
    assets.log.error({ reqId: request.id, err: describeError(error) }, 'unexpected failure serving an asset');
    return sendError(reply, errors.internal());
  });
  await assets.register(fastifyStatic, {
    root: path.join(webRoot, 'assets'),
    prefix: '/assets/',
    // Built assets carry a content hash in their names.
    maxAge: '365d',
    immutable: true,
    index: false,
    decorateReply: false,
    logLevel: 'silent',
  });
}

async function registerUiApi(api: FastifyInstance, deps: WebInterfaceDeps): Promise<void> {
  const auth = deps.auth;
  const sessionDeps: SessionDeps = { auth, key: deriveSessionKey(auth.adminToken) };

  // Cross-site requests cannot sign in, sign out or change anything, even with the cookie.
  const policy: OriginPolicy = { ...deps.origins, trustedProxyCount: auth.trustedProxyCount };
  api.addHook('onRequest', async (request) => {
    if (STATE_CHANGING.has(request.method) && !isAllowedOrigin(request, policy)) {
      throw new AppError('forbidden_origin', 'The request must come from the interface at its public address (Origin header; see PUBLIC_URL).');
    }
  });

  registerSessionRoutes(api, { ...sessionDeps, metrics: deps.metrics });
  if (deps.oidc !== null) registerOidcRoutes(api, { auth, config: deps.oidc });
  registerSignInOptions(api, deps.oidc !== null);
  const sessionAuth: AuthContext = { ...auth, session: async (request) => (await readPrincipal(request, sessionDeps))?.principal ?? null };
  deps.registerApiRoutes(api, sessionAuth);
  registerInterfaceDataRoutes(api, { auth: sessionAuth, keyring: deps.keyring, replay: deps.replay, commonTrigrams: deps.commonTrigrams, ...(deps.staleReads ? { staleReads: deps.staleReads } : {}) });
}
