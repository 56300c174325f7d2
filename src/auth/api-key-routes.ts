// API keys over HTTP for the Settings pages (docs/api.md): list, create (the secret answered
// once) and revoke. The same service functions as key:create and key:revoke, with the request's
// actor in the audit row and in the key's "created by".
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool } from '../db/pool.ts';
import { createdApiKeySchema, apiKeySchema } from '../http/answer-schemas/api-keys.ts';
import { dataOf, itemsOf } from '../http/answers.ts';
import { errors } from '../http/errors.ts';
import { ADMIN_ROUTE_ERRORS, defineRoute, JSON_BODY_ERRORS } from '../http/route-contract.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { apiKeyBodySchema, parseApiKeyBody } from './api-key-input.ts';
import { createProjectApiKey, revokeApiKeyByPrefix } from './api-key-service.ts';
import { findApiKeyProject, listProjectApiKeys, type ProjectApiKey } from './api-keys-sql.ts';
import { adminBeforeBody, authorizeProjectInPath, authorizeResourceProject, requestActor, requireAdmin, type AuthContext } from './credentials.ts';

export interface ApiKeyRouteDeps {
  auth: AuthContext;
  pool: Pool;
  keyring: Keyring;
  defaultRetentionDays: Config['defaultRetentionDays'];
}

/** `jtk_` and the 8 clear characters of the random part: anything else names no key. */
const PREFIX_SHAPE = /^jtk_[A-Za-z0-9_-]{8}$/;

const ts = (date: Date | null) => (date === null ? null : formatTimestamp(date.getTime()));

function keyView(key: ProjectApiKey) {
  return {
    prefix: key.prefix,
    name: key.name,
    environment: key.environmentName,
    createdBy: key.createdBy,
    createdAt: ts(key.createdAt)!,
    lastUsedAt: ts(key.lastUsedAt),
    revokedAt: ts(key.revokedAt),
  };
}

export function registerApiKeyRoutes(app: FastifyInstance, deps: ApiKeyRouteDeps): void {
  const base = {
    tag: 'api-keys',
    credential: (request: FastifyRequest) => requireAdmin(request, deps.auth),
    security: ['adminToken'],
    query: {},
  } as const;
  const common = ADMIN_ROUTE_ERRORS;
  const bodyErrors = JSON_BODY_ERRORS;
  const projectOf = (request: FastifyRequest) => authorizeProjectInPath(request, deps.auth, (request.params as { projectId: string }).projectId);

  defineRoute(app, {
    method: 'GET',
    url: '/v1/projects/:projectId/api-keys',
    contract: {
      ...base,
      summary: "The project's API keys, revoked ones included (the project's admins)",
      answers: { 200: { description: 'Keys by prefix, newest first; never a secret or a hash.', schema: dataOf(itemsOf(apiKeySchema)) } },
      errors: [...common, 'project_not_found'],
    },
    handler: async (request) => {
      const projectId = await projectOf(request);
      return { data: { items: (await listProjectApiKeys(deps.pool, projectId)).map(keyView) } };
    },
  });

  defineRoute(app, {
    method: 'POST',
    // The credential is checked before any body is read (docs/hostile-input.md).
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/projects/:projectId/api-keys',
    contract: {
      ...base,
      summary: "Create an API key for an environment, made if needed; the secret is answered once (the project's admins)",
      body: { schema: apiKeyBodySchema },
      answers: { 201: { description: 'The key and its secret, which is never shown again.', schema: dataOf(createdApiKeySchema) } },
      errors: [...common, ...bodyErrors, 'project_not_found', 'key_superseded'],
    },
    handler: async (request, reply) => {
      const projectId = await projectOf(request);
      const body = parseApiKeyBody(request.body);
      if (body instanceof Error) throw body;
      const input = { projectId, environmentName: body.environment, name: body.name, defaultRetentionDays: deps.defaultRetentionDays };
      const created = await createProjectApiKey(deps.pool, deps.keyring, input, await requestActor(request, deps.auth));
      const [key] = await listProjectApiKeys(deps.pool, projectId, created.keyPrefix);
      return reply.status(201).send({ data: { key: keyView(key!), apiKey: created.apiKey } });
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    options: { preParsing: adminBeforeBody(deps.auth) },
    url: '/v1/api-keys/:prefix',
    contract: {
      ...base,
      summary: "Revoke an API key by its prefix; ingestion with it answers 401 from then on (the admins of the key's project)",
      answers: { 204: { description: 'Revoked.' } },
      errors: [...common, 'not_found', 'parameter_too_long'],
    },
    handler: async (request, reply) => {
      const prefix = (request.params as { prefix: string }).prefix;
      // A key of a project the person holds no role in answers exactly as an unknown one.
      const unknown = () => errors.notFound('No active API key has this prefix.');
      const projectId = PREFIX_SHAPE.test(prefix) ? await findApiKeyProject(deps.pool, prefix) : null;
      if (projectId === null) throw unknown();
      await authorizeResourceProject(request, deps.auth, projectId, unknown);
      if (!(await revokeApiKeyByPrefix(deps.pool, prefix, await requestActor(request, deps.auth)))) throw unknown();
      return reply.status(204).send();
    },
  });
}
