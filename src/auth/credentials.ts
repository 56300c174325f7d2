import type { FastifyRequest } from 'fastify';
import { isUuid } from '../protocol/identifiers.ts';
import { adminTokenMatches } from '../crypto/admin-token.ts';
import { hashApiKey, parseApiKeyShape, verifyApiKey } from '../crypto/api-keys.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import { resolveClientAddress, throttleKey } from '../http/client-address.ts';
import { AppError, errors } from '../http/errors.ts';
import type { FailedCredentialThrottle } from '../http/throttle.ts';
import type { EnvironmentRow } from '../projects/environments-sql.ts';
import { findProjectById, soleProjectId } from '../projects/projects-sql.ts';
import { findApiKeyByPrefix, rehashApiKey, touchApiKey, type ApiKeyRecord } from './api-keys-sql.ts';

export interface AuthContext {
  db: Queryable;
  keyring: Keyring;
  adminToken: string;
  throttle: FailedCredentialThrottle;
  trustedProxyCount: number;
  now: () => number;
  /**
   * Set on the web interface's copy of the routes (`/ui/api`): the session cookie is then the
   * only credential, acting as the admin token, and Authorization headers are ignored.
   */
  session?: (request: FastifyRequest) => Promise<boolean>;
}

export interface ApiKeyPrincipal {
  kind: 'api-key';
  keyId: string;
  prefix: string;
  projectId: string;
  environmentId: string;
  environmentName: string;
  environment: EnvironmentRow;
}

/** What a reader may see: a whole project (admin) or one environment of it (API key). */
export interface ReadScope {
  projectId: string;
  /** Set for an API key: it reads its own environment only. */
  environmentId: string | null;
  environmentName: string | null;
}

/**
 * `Bearer <token>`: scheme in any case, exactly one space, then the token with nothing after
 * it (a trailing space included). Returns null for a missing header, '' for a malformed one.
 */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^bearer ([^\s]+)$/i.exec(header);
  return match ? match[1]! : '';
}

/**
 * The request's bearer token as bearerToken reads it. Node keeps only the first of repeated
 * Authorization headers; a request carrying several is refused as malformed ('') instead of
 * being judged by whichever a proxy or the parser happened to keep.
 */
export function requestBearerToken(request: FastifyRequest): string | null {
  const raw = request.raw?.rawHeaders ?? [];
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') count++;
  return count > 1 ? '' : bearerToken(request.headers.authorization);
}

async function apiKeyFromToken(ctx: AuthContext, token: string): Promise<ApiKeyPrincipal | null> {
  const prefix = parseApiKeyShape(token);
  if (prefix === null) return null;
  const record = await findApiKeyByPrefix(ctx.db, prefix);
  if (record === null || record.revoked) return null;
  const verdict = verifyApiKey(ctx.keyring, token, { keyId: record.hashKeyId, hash: record.hash });
  if (verdict === false) return null;
  await recordUse(ctx, record, token, verdict);
  return {
    kind: 'api-key',
    keyId: record.id,
    prefix: record.prefix,
    projectId: record.projectId,
    environmentId: record.environmentId,
    environmentName: record.environmentName,
    environment: record.environment,
  };
}

async function recordUse(ctx: AuthContext, record: ApiKeyRecord, token: string, verdict: 'current' | 'previous') {
  if (verdict === 'previous') await rehashApiKey(ctx.db, record, hashApiKey(ctx.keyring, token, 'current'));
  // Last use is kept to the minute: most requests of a busy key write nothing.
  if (!record.recentlyUsed) await touchApiKey(ctx.db, record);
}

/** Ingestion: an API key only, never throttled (event protocol 1.4). */
export function requireApiKey(request: FastifyRequest, ctx: AuthContext): Promise<ApiKeyPrincipal> {
  // Decided once per request: ingestion checks before reading the body and again in its handler.
  const key = request.raw ?? request;
  let verdict = apiKeyVerdicts.get(key);
  if (verdict === undefined) {
    verdict = requireApiKeyToken(requestBearerToken(request), ctx);
    apiKeyVerdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * The same check for a key read from elsewhere (the OTLP routes also take `x-service-api-key`,
 * a header OpenTelemetry exporters can set without a scheme).
 */
export async function requireApiKeyToken(token: string | null, ctx: AuthContext): Promise<ApiKeyPrincipal> {
  if (!token) throw errors.unauthorized();
  const principal = await apiKeyFromToken(ctx, token);
  if (principal === null) throw errors.unauthorized();
  return principal;
}

type Verdict = { kind: 'api-key'; principal: ApiKeyPrincipal } | { kind: 'admin' };

/**
 * The throttled credential check of every route that accepts the admin token (section 5):
 * the lock is checked before any credential; while locked only a valid API key on a read
 * route gets through; every refusal is counted against the source address.
 */
async function checkThrottled(request: FastifyRequest, ctx: AuthContext, acceptApiKey: boolean): Promise<Verdict> {
  // Decided once per request: a route checks before reading its body and again in its handler.
  const key = request.raw ?? request;
  const cached = throttledVerdicts.get(key);
  if (cached !== undefined && cached.acceptApiKey === acceptApiKey) return cached.verdict;
  const verdict = checkThrottledOnce(request, ctx, acceptApiKey);
  throttledVerdicts.set(key, { acceptApiKey, verdict });
  return verdict;
}

const throttledVerdicts = new WeakMap<object, { acceptApiKey: boolean; verdict: Promise<Verdict> }>();
const apiKeyVerdicts = new WeakMap<object, Promise<ApiKeyPrincipal>>();

async function checkThrottledOnce(request: FastifyRequest, ctx: AuthContext, acceptApiKey: boolean): Promise<Verdict> {
  if (ctx.session) {
    // A session was earned through the throttled sign-in; a missing or stale cookie is no guess.
    if (await ctx.session(request)) return { kind: 'admin' };
    throw errors.unauthorized();
  }
  const token = requestBearerToken(request);
  if (token === null) throw errors.unauthorized();
  const key = requestThrottleKey(request, ctx);
  const state = ctx.throttle.check(key, ctx.now());
  if (state.locked) {
    const principal = acceptApiKey && token ? await apiKeyFromToken(ctx, token) : null;
    if (principal) return { kind: 'api-key', principal };
    throw tooManyAttempts(state.retryAfterSeconds);
  }
  if (token && adminTokenMatches(ctx.adminToken, token)) return { kind: 'admin' };
  if (token && acceptApiKey) {
    const principal = await apiKeyFromToken(ctx, token);
    if (principal) return { kind: 'api-key', principal };
  }
  ctx.throttle.recordFailure(key, ctx.now());
  throw errors.unauthorized();
}

function requestThrottleKey(request: FastifyRequest, ctx: AuthContext): string {
  const address = resolveClientAddress(
    request.raw.socket.remoteAddress ?? '',
    headerValue(request.headers['x-forwarded-for']),
    ctx.trustedProxyCount,
  );
  return throttleKey(address);
}

function tooManyAttempts(retryAfterSeconds: number): AppError {
  return new AppError('too_many_attempts', 'Too many refused credentials from this address; wait and retry.', undefined, {
    'retry-after': String(retryAfterSeconds),
  });
}

/**
 * The web interface's sign-in: the admin token presented in a body, under the same per-address
 * lock as the admin token in a header (checked first; a refusal is counted).
 */
export function checkAdminSignIn(request: FastifyRequest, ctx: AuthContext, token: string): void {
  const key = requestThrottleKey(request, ctx);
  const state = ctx.throttle.check(key, ctx.now());
  if (state.locked) throw tooManyAttempts(state.retryAfterSeconds);
  if (adminTokenMatches(ctx.adminToken, token)) return;
  ctx.throttle.recordFailure(key, ctx.now());
  throw errors.unauthorized();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** Project selection for the admin token (section 5). */
export async function selectProject(request: FastifyRequest, db: Queryable): Promise<string> {
  const header = headerValue(request.headers['x-service-project-id'])?.trim();
  if (header === undefined || header === '') {
    const sole = await soleProjectId(db);
    if (sole === null) throw errors.projectNotFound();
    return sole;
  }
  if (!isUuid(header)) throw errors.projectNotFound();
  const project = await findProjectById(db, header.toLowerCase());
  if (project === null) throw errors.projectNotFound();
  return project.id;
}

/** Read routes: an API key (its own environment) or the admin token (a whole project). */
export async function requireReader(request: FastifyRequest, ctx: AuthContext): Promise<ReadScope> {
  const verdict = await checkThrottled(request, ctx, true);
  if (verdict.kind === 'api-key') {
    const p = verdict.principal;
    return { projectId: p.projectId, environmentId: p.environmentId, environmentName: p.environmentName };
  }
  return { projectId: await selectProject(request, ctx.db), environmentId: null, environmentName: null };
}

/** Admin-only routes: an API key is refused with 401 and counted like any refusal. */
export async function requireAdmin(request: FastifyRequest, ctx: AuthContext): Promise<void> {
  const verdict = await checkThrottled(request, ctx, false);
  if (verdict.kind !== 'admin') throw errors.unauthorized();
}

export async function requireAdminProject(request: FastifyRequest, ctx: AuthContext): Promise<string> {
  await requireAdmin(request, ctx);
  return selectProject(request, ctx.db);
}

/**
 * preParsing hook of admin-only routes with a body: the credential is checked before the body
 * is read, so a refused request costs no memory and no parsing (docs/hostile-input.md).
 */
export function adminBeforeBody(ctx: AuthContext) {
  return async (request: FastifyRequest, _reply: unknown, payload: NodeJS.ReadableStream) => {
    await requireAdmin(request, ctx);
    return payload;
  };
}

/**
 * onRequest hook of routes that take a credential in their body (sign-in): a locked address is
 * refused with 429 before the body is read, so a lock also spares the parsing.
 */
export function lockedAddressBeforeBody(ctx: AuthContext) {
  return async (request: FastifyRequest) => {
    const state = ctx.throttle.check(requestThrottleKey(request, ctx), ctx.now());
    if (state.locked) throw tooManyAttempts(state.retryAfterSeconds);
  };
}
