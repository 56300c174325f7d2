import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../audit/audit-log.ts';
import { isUuid } from '../protocol/identifiers.ts';
import { adminTokenMatches } from '../crypto/admin-token.ts';
import { hashApiKey, parseApiKeyShape, verifyApiKey } from '../crypto/api-keys.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError, errors } from '../http/errors.ts';
import { SETTLE_CREDENTIAL } from '../http/route-contract.ts';
import type { FailedCredentialThrottle } from '../http/throttle.ts';
import type { EnvironmentRow } from '../projects/environments-sql.ts';
import { findProjectById, soleProjectId } from '../projects/projects-sql.ts';
import { parsePersonalTokenShape, verifyPersonalToken } from '../crypto/personal-tokens.ts';
import { findApiKeyByPrefix, rehashApiKey, touchApiKey, type ApiKeyRecord } from './api-keys-sql.ts';
import { findActiveUser, memberProjects, memberRole, type UserPrincipal } from './people-sql.ts';
import { findPersonalTokenByPrefix, touchPersonalToken } from './personal-tokens-sql.ts';
import type { SessionLimits } from './user-sessions.ts';
import { requiredRule, roleIncludes, type Role } from './policy.ts';
import { headerValue, requestBearerToken, requestClientAddress, requestThrottleKey, tooManyAttempts } from './request-credentials.ts';
import type { VerifiedApiKey, VerifiedApiKeys } from './verified-api-keys.ts';
import type { ApiKeyLookups } from './api-key-lookups.ts';

export { createApiKeyLookups, type ApiKeyLookups } from './api-key-lookups.ts';

export type { UserPrincipal } from './people-sql.ts';
export type { Role } from './policy.ts';
export {
  bearerToken,
  checkAdminSignIn,
  lockedAddressBeforeBody,
  requestBearerToken,
  requestClientAddress,
  requestThrottleKey,
} from './request-credentials.ts';

export interface AuthContext {
  db: Queryable;
  keyring: Keyring;
  adminToken: string;
  throttle: FailedCredentialThrottle;
  trustedProxyCount: number;
  now: () => number;
  /** Idle and absolute lifetimes of a person's session. */
  sessionLimits: SessionLimits;
  /**
   * Set on the web interface's copy of the routes (`/ui/api`): the session cookie is then the
   * only credential (an admin-token session or a person's), and Authorization headers are ignored.
   */
  session?: (request: FastifyRequest) => Promise<Principal | null>;
  /** This instance's verified API keys (search and the list confirm them in their statement). */
  verifiedKeys?: VerifiedApiKeys;
  /** Where the full check reads a key's row: ingestion shares statements between concurrent requests (api-key-lookups.ts). */
  lookups?: ApiKeyLookups;
}

/** Who a request acts as, once its credential is accepted. */
export type Principal =
  | { kind: 'admin-token' }
  | { kind: 'api-key'; key: ApiKeyPrincipal }
  | { kind: 'user'; user: UserPrincipal; tokenPrefix: string | null; sessionId: string | null };

/** The audit actor of a principal (the CLI writes CLI_ACTOR). */
export function actorOf(principal: Principal, clientAddress: string | null): AuditActor {
  if (principal.kind === 'user') return { kind: 'user', userId: principal.user.id, email: principal.user.email, clientAddress };
  if (principal.kind === 'api-key') return { kind: 'api-key', keyPrefix: principal.key.prefix, clientAddress };
  return { kind: 'admin-token', clientAddress };
}

/** Who made an accepted request, for its audit row. */
export async function requestActor(request: FastifyRequest, ctx: AuthContext): Promise<AuditActor> {
  const principal = await principalOf(request);
  if (principal === null) throw errors.unauthorized();
  return actorOf(principal, requestClientAddress(request, ctx));
}

export interface ApiKeyPrincipal {
  kind: 'api-key';
  keyId: string;
  prefix: string;
  projectId: string;
  environmentId: string;
  environmentName: string;
  environment: EnvironmentRow;
  /** Set when the key was checked against this instance's verified keys: its row is still to confirm. */
  unconfirmed?: KeyStanding;
}

/** The key row as it was verified: the read's statement confirms it still stands so. */
export interface KeyStanding {
  prefix: string;
  keyId: string;
  projectId: string;
  hash: string;
  hashKeyId: string;
}

/** A reader whose API key is confirmed by the read's own statement instead of a lookup. */
export interface UnconfirmedKey {
  standing: KeyStanding;
  /** The statement found the row as verified; records the key's use (to the minute) unless recent. */
  confirmed(recentlyUsed: boolean): Promise<void>;
  /** It did not: the full check with its lookup, a fresh scope or the refusal (401). */
  check(): Promise<ReadScope>;
}

/** What a reader may see: a whole project (admin) or one environment of it (API key). */
export interface ReadScope {
  projectId: string;
  /** Set for an API key: it reads its own environment only. */
  environmentId: string | null;
  environmentName: string | null;
  unconfirmed?: UnconfirmedKey;
}

function keyPrincipal(key: VerifiedApiKey | ApiKeyRecord): ApiKeyPrincipal {
  return {
    kind: 'api-key',
    keyId: key.id,
    prefix: key.prefix,
    projectId: key.projectId,
    environmentId: key.environmentId,
    environmentName: key.environmentName,
    environment: key.environment,
  };
}

/**
 * `deferred`: a key this instance verified before is checked in memory, its row's standing left
 * to the caller's statement (ApiKeyPrincipal.unconfirmed). Only a verdict under the current key
 * is kept, so a key still hashed under the previous one always takes the full path and is re-hashed.
 */
async function apiKeyFromToken(ctx: AuthContext, token: string, deferred = false): Promise<ApiKeyPrincipal | null> {
  const prefix = parseApiKeyShape(token);
  if (prefix === null) return null;
  const known = deferred ? ctx.verifiedKeys?.get(prefix) : undefined;
  if (known && verifyApiKey(ctx.keyring, token, { keyId: known.hashKeyId, hash: known.hash }) === 'current') {
    const { id: keyId, projectId, hash, hashKeyId } = known;
    return { ...keyPrincipal(known), unconfirmed: { prefix, keyId, projectId, hash, hashKeyId } };
  }
  const record = ctx.lookups !== undefined ? await ctx.lookups.find(prefix) : await findApiKeyByPrefix(ctx.db, prefix);
  if (record === null || record.revoked) {
    ctx.verifiedKeys?.forget(prefix);
    return null;
  }
  const verdict = verifyApiKey(ctx.keyring, token, { keyId: record.hashKeyId, hash: record.hash });
  if (verdict === false) return null;
  await recordUse(ctx, record, token, verdict);
  if (verdict === 'current') ctx.verifiedKeys?.remember(record);
  return keyPrincipal(record);
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

type Verdict = Principal;

/**
 * The throttled credential check of every route that accepts the admin token (section 5):
 * the lock is checked before any credential; while locked only a valid API key on a read
 * route gets through; every refusal is counted against the source address.
 */
async function checkThrottled(request: FastifyRequest, ctx: AuthContext, acceptApiKey: boolean, deferKey = false): Promise<Verdict> {
  // Decided once per request: a route checks before reading its body and again in its handler.
  const key = request.raw ?? request;
  const cached = throttledVerdicts.get(key);
  if (cached !== undefined && cached.acceptApiKey === acceptApiKey && cached.deferKey === deferKey) return cached.verdict;
  const verdict = checkThrottledOnce(request, ctx, acceptApiKey, deferKey);
  throttledVerdicts.set(key, { acceptApiKey, deferKey, verdict });
  return verdict;
}

/** A personal access token of an active user, not revoked and not expired. */
async function personFromToken(ctx: AuthContext, token: string): Promise<Principal | null> {
  const prefix = parsePersonalTokenShape(token);
  if (prefix === null) return null;
  const record = await findPersonalTokenByPrefix(ctx.db, prefix);
  if (record === null || record.revokedAt !== null) return null;
  if (record.expiresAt !== null && record.expiresAt.getTime() <= ctx.now()) return null;
  if (verifyPersonalToken(ctx.keyring, token, { keyId: record.hashKeyId, hash: record.hash }) === false) return null;
  const user = await findActiveUser(ctx.db, record.userId);
  if (user === null) return null;
  await touchPersonalToken(ctx.db, record.id, new Date(ctx.now()));
  return { kind: 'user', user, tokenPrefix: record.prefix, sessionId: null };
}

const throttledVerdicts = new WeakMap<object, { acceptApiKey: boolean; deferKey: boolean; verdict: Promise<Verdict> }>();
const apiKeyVerdicts = new WeakMap<object, Promise<ApiKeyPrincipal>>();

async function checkThrottledOnce(request: FastifyRequest, ctx: AuthContext, acceptApiKey: boolean, deferKey: boolean): Promise<Verdict> {
  if (ctx.session) {
    // A session was earned through the throttled sign-in; a missing or stale cookie is no guess.
    const principal = await ctx.session(request);
    if (principal !== null) return principal;
    throw errors.unauthorized();
  }
  const token = requestBearerToken(request);
  if (token === null) throw errors.unauthorized();
  const key = requestThrottleKey(request, ctx);
  const state = ctx.throttle.check(key, ctx.now());
  if (state.locked) {
    const principal = acceptApiKey && token ? await apiKeyFromToken(ctx, token) : null;
    if (principal) return { kind: 'api-key', key: principal };
    throw tooManyAttempts(state.retryAfterSeconds);
  }
  if (token && adminTokenMatches(ctx.adminToken, token)) return { kind: 'admin-token' };
  if (token) {
    const person = await personFromToken(ctx, token);
    if (person) return person;
  }
  if (token && acceptApiKey) {
    const principal = await apiKeyFromToken(ctx, token, deferKey);
    if (principal) return { kind: 'api-key', key: principal };
  }
  ctx.throttle.recordFailure(key, ctx.now());
  throw errors.unauthorized();
}

/** The principal a request's credential check accepted (after requireReader, requireAdmin...). */
export async function principalOf(request: FastifyRequest): Promise<Principal | null> {
  const cached = throttledVerdicts.get(request.raw ?? request);
  return cached === undefined ? null : cached.verdict.catch(() => null);
}

export function forbidden(): AppError {
  return new AppError('forbidden', 'Your role does not allow this action.');
}

/**
 * Project selection (section 5), and the role rule of the route for a person (docs/roles.md):
 * a project they hold no role in answers exactly as an unknown one (404 project_not_found);
 * a role too low is 403 forbidden. Without the header a person gets their one project, if one.
 */
export async function selectProject(request: FastifyRequest, ctx: Pick<AuthContext, 'db'>): Promise<string> {
  const principal = await principalOf(request);
  const person = principal?.kind === 'user' && !principal.user.owner ? principal.user : null;
  const header = headerValue(request.headers['x-service-project-id'])?.trim();
  let projectId: string;
  let role: Role | null = null;
  if (header === undefined || header === '') {
    if (person !== null) {
      const visible = await memberProjects(ctx.db, person.id);
      if (visible.size !== 1) throw errors.projectNotFound();
      [[projectId, role]] = [...visible] as [[string, Role]];
    } else {
      const sole = await soleProjectId(ctx.db);
      if (sole === null) throw errors.projectNotFound();
      projectId = sole;
    }
  } else {
    if (!isUuid(header)) throw errors.projectNotFound();
    const project = await findProjectById(ctx.db, header.toLowerCase());
    if (project === null) throw errors.projectNotFound();
    projectId = project.id;
    if (person !== null) {
      role = await memberRole(ctx.db, projectId, person.id);
      if (role === null) throw errors.projectNotFound();
    }
  }
  if (person !== null) {
    const rule = requiredRule(request.method, request.routeOptions.url);
    if (rule.kind !== 'project' || !roleIncludes(role!, rule.role)) throw forbidden();
  }
  return projectId;
}

/**
 * A project named in the path (memberships): the same answers as selectProject, for the
 * project the path names instead of the header.
 */
export async function authorizeProjectInPath(request: FastifyRequest, ctx: Pick<AuthContext, 'db'>, projectId: string): Promise<string> {
  if (!isUuid(projectId)) throw errors.projectNotFound();
  const project = await findProjectById(ctx.db, projectId.toLowerCase());
  if (project === null) throw errors.projectNotFound();
  const principal = await principalOf(request);
  if (principal?.kind === 'user' && !principal.user.owner) {
    const role = await memberRole(ctx.db, project.id, principal.user.id);
    if (role === null) throw errors.projectNotFound();
    const rule = requiredRule(request.method, request.routeOptions.url);
    if (rule.kind !== 'project' || !roleIncludes(role, rule.role)) throw forbidden();
  }
  return project.id;
}

/**
 * A resource that names its own project (an API key by its prefix, whatever project is selected):
 * the route's rule applies in that project. A person without a role there gets `hidden`, the same
 * answer as for an unknown resource; a role too low is 403 forbidden.
 */
export async function authorizeResourceProject(request: FastifyRequest, ctx: Pick<AuthContext, 'db'>, projectId: string, hidden: () => AppError): Promise<void> {
  const principal = await principalOf(request);
  if (principal?.kind !== 'user' || principal.user.owner) return;
  const role = await memberRole(ctx.db, projectId, principal.user.id);
  if (role === null) throw hidden();
  const rule = requiredRule(request.method, request.routeOptions.url);
  if (rule.kind !== 'project' || !roleIncludes(role, rule.role)) throw forbidden();
}

/** A person may act on a route whose rule is not a project's only as the rule allows. */
function authorizePerson(request: FastifyRequest, principal: Principal): void {
  if (principal.kind !== 'user') return;
  const rule = requiredRule(request.method, request.routeOptions.url);
  if (rule.kind === 'ingest' || rule.kind === 'public') throw errors.unauthorized();
  if (rule.kind === 'owner' && !principal.user.owner) throw forbidden();
}

/** Read routes: an API key (its own environment), the admin token or a person (a whole project). */
export function requireReader(request: FastifyRequest, ctx: AuthContext): Promise<ReadScope> {
  return reader(request, ctx, false);
}

/**
 * requireReader for a read whose statement confirms the key itself (search, the journey list):
 * a key this instance verified before comes back with `unconfirmed`, and the route must confirm
 * it in its statement, or settle it (`unconfirmed.check`) before answering anything else.
 */
export function requireReaderConfirmedByRead(request: FastifyRequest, ctx: AuthContext): Promise<ReadScope> {
  return reader(request, ctx, true);
}

async function reader(request: FastifyRequest, ctx: AuthContext, deferKey: boolean): Promise<ReadScope> {
  const verdict = await checkThrottled(request, ctx, true, deferKey);
  if (verdict.kind === 'api-key') {
    const p = verdict.key;
    const scope: ReadScope = { projectId: p.projectId, environmentId: p.environmentId, environmentName: p.environmentName };
    return p.unconfirmed === undefined ? scope : unconfirmedScope(request, ctx, scope, p.unconfirmed);
  }
  authorizePerson(request, verdict);
  return { projectId: await selectProject(request, ctx), environmentId: null, environmentName: null };
}

function unconfirmedScope(request: FastifyRequest, ctx: AuthContext, scope: ReadScope, standing: KeyStanding): ReadScope {
  let checked: Promise<ReadScope> | undefined;
  // The request's verdict is decided again by the full check, and counted if refused.
  const check = () => (checked ??= (throttledVerdicts.delete(request.raw ?? request), requireReader(request, ctx)));
  const confirmed = async (recentlyUsed: boolean) => {
    if (!recentlyUsed) await touchApiKey(ctx.db, { projectId: standing.projectId, id: standing.keyId });
  };
  return { ...scope, unconfirmed: { standing, confirmed, check }, [SETTLE_CREDENTIAL]: check } as ReadScope;
}

/**
 * Routes beyond reading: the admin token or a person (their role is checked when the project
 * is selected, or here for instance-wide rules). An API key is refused with 401 and counted.
 */
export async function requireAdmin(request: FastifyRequest, ctx: AuthContext): Promise<Principal> {
  const verdict = await checkThrottled(request, ctx, false);
  if (verdict.kind === 'api-key') throw errors.unauthorized();
  authorizePerson(request, verdict);
  return verdict;
}

export async function requireAdminProject(request: FastifyRequest, ctx: AuthContext): Promise<string> {
  await requireAdmin(request, ctx);
  return selectProject(request, ctx);
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
