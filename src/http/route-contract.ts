// Route contracts: every route states in one declaration who may call it, which query
// parameters it takes, its body and its answers. One shared hook (enforceRouteContract)
// applies the spec's order and query-string rules from that declaration, so no handler can
// forget them, and the OpenAPI document (src/http/openapi.ts) is generated from the same
// declarations. docs/architecture.md, "Adding a route", shows how a route declares its contract.

import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, RouteShorthandOptions } from 'fastify';
import { z } from 'zod';
import { AppError, statusesOf, type ErrorCode } from './errors.ts';
import { parseQuery, type QueryValues } from './query.ts';

/** Errors every route with a JSON body may answer (its parser and body checks). */
export const JSON_BODY_ERRORS = ['invalid_request', 'malformed_json', 'unsupported_media_type', 'payload_too_large'] as const satisfies readonly ErrorCode[];

/** Errors every admin-credentialed route may answer before its handler decides anything. */
export const ADMIN_ROUTE_ERRORS = ['unauthorized', 'forbidden', 'too_many_attempts', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'] as const satisfies readonly ErrorCode[];

export interface RouteAnswer {
  description: string;
  /** The JSON answer; omitted for an answer without a body (204). */
  schema?: z.ZodType;
}

export interface RouteContract<Q extends string = string, C = unknown> {
  /** One line for the OpenAPI document. */
  summary: string;
  /** The OpenAPI tag, usually the capability. */
  tag: string;
  /**
   * Resolves the credential (and throws 401, 404 project_not_found, 429...); null for a route
   * without one. Read and admin routes check it before the query (docs/decisions.md,
   * "Authentication order").
   */
  credential: ((request: FastifyRequest) => Promise<C>) | null;
  /** OpenAPI security scheme names the credential accepts. */
  security?: readonly ('apiKey' | 'adminToken')[];
  /** Ingestion (event-protocol 1.5): body, then query, then key. */
  queryBeforeCredential?: boolean;
  /** Refusal of a request without a body, checked first (event-protocol 1.2). */
  missingBody?: () => AppError;
  /**
   * The query parameters the route takes, by name; anything else, a repeat or a NUL is refused
   * (invalid_query, or invalid_cursor for the cursor). 'ignored' only for the health probes,
   * which the spec keeps free of any rule so that load balancers can add what they like.
   */
  query: Readonly<Record<Q, string>> | 'ignored';
  /** Value rules of the query checked at the query's place in the order (ingestion's dryRun). */
  checkQuery?: (query: QueryValues<Q>) => void;
  body?: {
    schema: z.ZodType;
    /** Media types the route accepts; application/json when omitted. */
    contentTypes?: readonly string[];
    required?: boolean;
  };
  /** Answers other than errors, by status. */
  answers: Readonly<Record<number, RouteAnswer>>;
  /** Every error code the route may answer with (the document gives each its status). */
  errors: readonly ErrorCode[];
}

export interface Granted<Q extends string, C> {
  credential: C;
  query: QueryValues<Q>;
}

export interface RouteDefinition<Q extends string, C> {
  method: HTTPMethods;
  url: string;
  contract: RouteContract<Q, C>;
  /** Further Fastify route options (body limit, route-level hooks). */
  options?: RouteShorthandOptions;
  handler: (request: FastifyRequest, reply: FastifyReply, granted: Granted<Q, C>) => Promise<unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    contract?: RouteContract;
  }
}

const granted = new WeakMap<FastifyRequest, Granted<string, unknown>>();

/**
 * Carried by a credential accepted before its standing was confirmed (an API key checked against
 * this instance's verified keys, confirmed by the read's own statement): settling it runs the
 * full check, which throws the credential's refusal. A query error is reported only after the
 * credential is settled, so the order credential-then-query holds for such credentials too.
 */
export const SETTLE_CREDENTIAL: unique symbol = Symbol('settleCredential');

export async function settleCredential(credential: unknown): Promise<void> {
  if (typeof credential !== 'object' || credential === null || !(SETTLE_CREDENTIAL in credential)) return;
  await (credential as { [SETTLE_CREDENTIAL]: () => Promise<unknown> })[SETTLE_CREDENTIAL]();
}

/** A query value rule of the handler, under the same order: the credential is settled before its error. */
export async function afterCredential<T>(credential: unknown, parse: () => T): Promise<T> {
  try {
    return parse();
  } catch (error) {
    await settleCredential(credential);
    throw error;
  }
}

export interface RegisteredRoute {
  method: string;
  url: string;
  contract: RouteContract | undefined;
}

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Records every route registered on the app from now on, in any plugin or prefix below it. */
export function trackRoutes(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      routes.push({ method, url: route.url, contract: route.config?.contract });
    }
  });
}

/** The routes recorded by trackRoutes (HEAD routes Fastify adds for GET included). */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

/** The contract a matched route declared, or undefined (routes added outside buildApp). */
export function contractOf(request: FastifyRequest): RouteContract | undefined {
  return request.routeOptions.config?.contract;
}

/** The names a query declaration allows. */
export function allowedQuery(contract: RouteContract): string[] {
  return contract.query === 'ignored' ? [] : Object.keys(contract.query);
}

/**
 * The matched route's declared query rules. Also for hooks that must answer before the contract
 * hook runs (ingestion refuses a key before reading the body, yet keeps the protocol's order).
 */
export function checkDeclaredQuery(request: FastifyRequest): QueryValues<string> {
  const contract = contractOf(request);
  if (contract === undefined || contract.query === 'ignored') return {};
  const query = parseQuery(request.raw.url ?? '', allowedQuery(contract));
  contract.checkQuery?.(query);
  return query;
}

/**
 * The shared preHandler hook (registered once by buildApp): applies the declared order of
 * checks (body presence, credential, query string) and keeps what they produced for the handler.
 */
export async function enforceRouteContract(request: FastifyRequest): Promise<void> {
  const contract = contractOf(request);
  if (contract === undefined) return;
  if (contract.missingBody && request.body === undefined) throw contract.missingBody();
  const readQuery = () => checkDeclaredQuery(request);
  let query: QueryValues<string>;
  let credential: unknown;
  if (contract.queryBeforeCredential) {
    query = readQuery();
    credential = contract.credential ? await contract.credential(request) : null;
  } else {
    credential = contract.credential ? await contract.credential(request) : null;
    query = await afterCredential(credential, readQuery);
  }
  granted.set(request, { credential, query });
}

/** Registers a route with its contract; the handler receives the checked credential and query. */
export function defineRoute<Q extends string, C>(app: FastifyInstance, route: RouteDefinition<Q, C>): void {
  app.route({
    ...route.options,
    method: route.method,
    url: route.url,
    config: { contract: route.contract as RouteContract },
    schema: openApiSchema(route.contract as RouteContract),
    // Validation is the contract hook's and the capability's (with the spec's codes and
    // details), serialization stays JSON.stringify: the schema is for the document only.
    validatorCompiler: () => () => true,
    serializerCompiler: () => (data) => JSON.stringify(data),
    handler: async (request, reply) => {
      const checked = granted.get(request);
      // The hook runs for every route of buildApp; missing means it was not registered.
      if (checked === undefined) throw new AppError('internal_error', 'An unexpected error occurred.');
      return route.handler(request, reply, checked as Granted<Q, C>);
    },
  });
}

/** JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) of a zod schema, without `$schema`. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** The one error body (interface spec 7), a shared component of the document. */
export const ERROR_BODY_ID = 'ErrorBody';
export const errorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    requestId: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});

/** The Fastify route schema @fastify/swagger turns into the route's OpenAPI operation. */
function openApiSchema(contract: RouteContract): Record<string, unknown> {
  const schema: Record<string, unknown> = { summary: contract.summary, tags: [contract.tag] };
  if (contract.security && contract.security.length > 0) {
    schema.security = contract.security.map((name) => ({ [name]: [] }));
  }
  if (contract.query !== 'ignored' && Object.keys(contract.query).length > 0) {
    schema.querystring = {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(
        Object.entries(contract.query).map(([name, description]) => [name, { type: 'string', description }]),
      ),
    };
  }
  if (contract.body) {
    schema.body = jsonSchemaOf(contract.body.schema);
    if (contract.body.contentTypes) schema.consumes = [...contract.body.contentTypes];
  }
  const response: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(contract.answers)) {
    response[status] = answer.schema
      ? { description: answer.description, ...jsonSchemaOf(answer.schema) }
      : { description: answer.description, type: 'null' };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of contract.errors) {
    for (const status of statusesOf(code)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of byStatus) {
    response[String(status)] = { description: `Error codes: ${codes.join(', ')}.`, $ref: `${ERROR_BODY_ID}#` };
  }
  schema.response = response;
  return schema;
}
