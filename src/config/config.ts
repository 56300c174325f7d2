import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_READ_REPLICA_MAX_LAG_MS } from '../db/read-replica.ts';
import { MAX_BATCH_EVENTS } from '../protocol/limits.ts';
import { ENCRYPTION_KEY_RULE, MIN_ADMIN_TOKEN_LENGTH, weakAdminTokenReason, weakEncryptionKeyReason } from './secret-rules.ts';

export { MIN_ADMIN_TOKEN_LENGTH } from './secret-rules.ts';

/** A configuration problem; the message names the variable and the fix. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** Bounds of MAX_EVENT_PAYLOAD_BYTES in bytes, fixed by the event protocol (9.1). */
export const MIN_EVENT_PAYLOAD_BYTES = 1024;
export const MAX_EVENT_PAYLOAD_BYTES_CEILING = 1_048_576;
/** The embedded server's default port: not 5432, so it never meets a system PostgreSQL. */
export const DEFAULT_EMBEDDED_PG_PORT = 54329;
export const DEFAULT_DATA_DIR = '.data';

/** Bounds and default of OTLP_MAX_REQUEST_BYTES in bytes: 4 MiB matches OTLP exporters' batches. */
export const DEFAULT_OTLP_MAX_REQUEST_BYTES = 4_194_304;
export const MIN_OTLP_MAX_REQUEST_BYTES = 1024;
export const MAX_OTLP_MAX_REQUEST_BYTES = 67_108_864;

/** Default of FINDINGS_ANALYZER_BUSY_SHARE: the analyzer's share of wall time while the database is busy (src/findings/pacing.ts). */
export const DEFAULT_FINDINGS_ANALYZER_BUSY_SHARE = 0.25;
/** Below this the analyzer could fall behind a steady load for good (docs/findings.md, "Pacing"). */
export const MIN_FINDINGS_ANALYZER_BUSY_SHARE = 0.05;

/** Default of INGEST_COALESCE_MAX_WAIT_MS in ms (src/ingest/coalesce.ts). */
export const DEFAULT_INGEST_COALESCE_MAX_WAIT_MS = 0;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * What one instance does (docs/deployment.md): `api` serves the read and settings routes and the
 * interface, `ingest` the event, batch and OTLP routes, `worker` the background jobs (findings
 * analyzer, alert delivery, retention sweep). Every instance serves /health and /ready.
 */
export const INSTANCE_ROLES = ['api', 'ingest', 'worker'] as const;
export type InstanceRole = (typeof INSTANCE_ROLES)[number];

export interface Config {
  /** JTRACE_ROLES: what this instance serves and runs; all three by default. */
  roles: readonly InstanceRole[];
  databaseUrl: string | null;
  /** DATABASE_READ_URL: a streaming standby for reads that tolerate a little staleness; null when unset. */
  databaseReadUrl: string | null;
  /** READ_REPLICA_MAX_LAG_MS: stale-tolerant reads use the replica while its lag is at most this. */
  readReplicaMaxLagMs: number;
  host: string;
  port: number;
  /** The metrics listener's own address: loopback unless chosen, whatever HOST is. */
  metricsHost: string;
  metricsPort: number | null;
  adminToken: string | null;
  encryptionKey: string | null;
  encryptionKeyPrevious: string | null;
  defaultRetentionDays: number;
  statementTimeoutMs: number;
  poolMax: number;
  maxEventPayloadBytes: number;
  allowFullPayloadCapture: boolean;
  /** null: not configured (embedded mode then allows loopback). */
  replayAllowedHosts: string[] | null;
  trustedProxyCount: number;
  retentionSweepIntervalMs: number;
  /** AUDIT_RETENTION_DAYS: audit, settings-history and account rows older than this are swept; 0 keeps them. */
  auditRetentionDays: number;
  logLevel: (typeof LOG_LEVELS)[number];
  /** OTLP_ENABLED: serve POST /v1/traces and /v1/logs (docs/otlp.md). */
  otlpEnabled: boolean;
  /** OTLP_MAX_REQUEST_BYTES: cap on an OTLP body, sent and inflated. */
  otlpMaxRequestBytes: number;
  /** INGEST_COALESCE_MAX_WAIT_MS: extra wait of a group of single events for company; 0: none, groups start as soon as a commit slot frees. */
  ingestCoalesceMaxWaitMs: number;
  /** INGEST_COALESCE_MAX_EVENTS: a shared commit is started once it holds this many events; 0 disables. */
  ingestCoalesceMaxEvents: number;
  /** FINDINGS_ANALYZER_ENABLED: this process may run the findings analyzer (docs/findings.md). */
  findingsAnalyzerEnabled: boolean;
  /** FINDINGS_ANALYZER_BUSY_SHARE: share of wall time the analyzer works while other work uses the database; 1: never paced. */
  findingsAnalyzerBusyShare: number;
  /** ALERT_ALLOWED_HOSTS: hosts alert webhooks may be sent to; null = unset. */
  alertAllowedHosts: string[] | null;
  /**
   * PUBLIC_URL's origin (the address people use), normalised; null when unset. The web
   * interface's Origin check accepts only it (docs/web-interface.md, "Origin check").
   */
  publicOrigin: string | null;
  /** Embedded mode: the cluster's port and the folder of its data and generated secrets. */
  embeddedPgPort: number;
  dataDir: string;
  /** SESSION_IDLE_MINUTES: a person's session ends after this long without a request. */
  sessionIdleMinutes: number;
  /** SESSION_MAX_HOURS: a person's session ends this long after sign-in, however busy. */
  sessionMaxHours: number;
  /** Single sign-on through OpenID Connect; null when OIDC_ISSUER is unset (docs/roles.md). */
  oidc: OidcConfig | null;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  /** Lower-case domains whose verified e-mail addresses get an account on first sign-in. */
  allowedDomains: string[];
  defaultRole: 'viewer' | 'operator' | 'admin';
  /** Slugs of the projects a new account gets the default role in. */
  defaultProjects: string[];
}

type Env = Record<string, string | undefined>;

// ---- one schema per variable: blank means unset, values are trimmed --------------------------

/** Blank means unset, everywhere; surrounding white space is never part of a value. */
function variable<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (typeof value === 'string' ? value.trim() || undefined : value), schema);
}

/** A decimal such as 0.25, from min to max. */
function fraction(min: number, max: number) {
  const message = `must be a number from ${min} to ${max}, such as 0.25 (got an invalid value)`;
  return z.string().regex(/^\d+(\.\d+)?$/, message).transform(Number).pipe(z.number().min(min, message).max(max, message));
}

function wholeNumber(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max} (got an invalid value)`;
  return z.string().regex(/^\d+$/, message).transform(Number).pipe(z.number().int().min(min, message).max(max, message));
}

const port = () => wholeNumber(1, 65535);
const text = () => z.string().optional();

/** The environment variables jtrace reads, each with its default; add a new variable here. */
const VARIABLES = {
  DATABASE_URL: variable(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection URL').optional()),
  DATABASE_READ_URL: variable(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection URL of a streaming standby').optional()),
  // A second by default: search and lists may lag that much, never more (docs/deployment.md).
  READ_REPLICA_MAX_LAG_MS: variable(wholeNumber(0, 3_600_000).default(DEFAULT_READ_REPLICA_MAX_LAG_MS)),
  HOST: variable(z.string().default('127.0.0.1')),
  PORT: variable(port().default(8080)),
  METRICS_HOST: variable(z.string().default('127.0.0.1')),
  METRICS_PORT: variable(port().optional()),
  ADMIN_TOKEN: variable(text()),
  ADMIN_TOKEN_FILE: variable(text()),
  ENCRYPTION_KEY: variable(text()),
  ENCRYPTION_KEY_FILE: variable(text()),
  ENCRYPTION_KEY_PREVIOUS: variable(text()),
  ENCRYPTION_KEY_PREVIOUS_FILE: variable(text()),
  DEFAULT_RETENTION_DAYS: variable(wholeNumber(1, 36_500).default(30)),
  DATABASE_STATEMENT_TIMEOUT_MS: variable(wholeNumber(0, 2_147_483_647).default(15_000)),
  DATABASE_POOL_MAX: variable(wholeNumber(1, 1000).default(10)),
  MAX_EVENT_PAYLOAD_BYTES: variable(wholeNumber(MIN_EVENT_PAYLOAD_BYTES, MAX_EVENT_PAYLOAD_BYTES_CEILING).default(262_144)),
  ALLOW_FULL_PAYLOAD_CAPTURE: variable(z.enum(['true', 'false'], { error: 'must be true or false' }).default('false')),
  REPLAY_ALLOWED_HOSTS: variable(text()),
  TRUSTED_PROXY_COUNT: variable(wholeNumber(0, 64).default(0)),
  RETENTION_SWEEP_INTERVAL_MS: variable(wholeNumber(1000, 2_147_483_647).default(3_600_000)),
  AUDIT_RETENTION_DAYS: variable(wholeNumber(0, 36_500).default(365)),
  LOG_LEVEL: variable(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info')),
  EMBEDDED_PG_PORT: variable(port().default(DEFAULT_EMBEDDED_PG_PORT)),
  JTRACE_DATA_DIR: variable(z.string().default(DEFAULT_DATA_DIR)),
  PUBLIC_URL: variable(text()),
  OTLP_ENABLED: variable(z.enum(['true', 'false'], { error: 'must be true or false' }).default('false')),
  // 0: group commit alone gathers concurrent senders, a lone event waits for nothing (docs/ingestion.md).
  INGEST_COALESCE_MAX_WAIT_MS: variable(wholeNumber(0, 1000).default(DEFAULT_INGEST_COALESCE_MAX_WAIT_MS)),
  // At most a batch: the shared transaction is never larger than one POST /v1/events/batch.
  INGEST_COALESCE_MAX_EVENTS: variable(wholeNumber(0, MAX_BATCH_EVENTS).default(MAX_BATCH_EVENTS)),
  JTRACE_ROLES: variable(z.string().default(INSTANCE_ROLES.join(','))),
  FINDINGS_ANALYZER_ENABLED: variable(z.enum(['true', 'false'], { error: 'must be true or false' }).default('true')),
  FINDINGS_ANALYZER_BUSY_SHARE: variable(fraction(MIN_FINDINGS_ANALYZER_BUSY_SHARE, 1).default(DEFAULT_FINDINGS_ANALYZER_BUSY_SHARE)),
  ALERT_ALLOWED_HOSTS: variable(text()),
  OTLP_MAX_REQUEST_BYTES: variable(
    wholeNumber(MIN_OTLP_MAX_REQUEST_BYTES, MAX_OTLP_MAX_REQUEST_BYTES).default(DEFAULT_OTLP_MAX_REQUEST_BYTES),
  ),
  // A working day idle, a week at most (docs/roles.md, "Sessions").
  SESSION_IDLE_MINUTES: variable(wholeNumber(1, 525_600).default(720)),
  SESSION_MAX_HOURS: variable(wholeNumber(1, 8_760).default(168)),
  OIDC_ISSUER: variable(z.url({ protocol: /^https?$/, error: 'must be the https:// URL of the OpenID provider (its issuer)' }).optional()),
  OIDC_CLIENT_ID: variable(text()),
  OIDC_CLIENT_SECRET: variable(text()),
  OIDC_CLIENT_SECRET_FILE: variable(text()),
  OIDC_REDIRECT_URL: variable(z.url({ protocol: /^https?$/, error: 'must be the URL of /ui/api/oidc/callback on your jtrace address' }).optional()),
  OIDC_ALLOWED_DOMAINS: variable(text()),
  OIDC_DEFAULT_ROLE: variable(z.enum(['viewer', 'operator', 'admin'], { error: 'must be viewer, operator or admin' }).default('viewer')),
  OIDC_DEFAULT_PROJECTS: variable(text()),
};

type Variables = z.output<z.ZodObject<typeof VARIABLES>>;
type SecretName = 'ADMIN_TOKEN' | 'ENCRYPTION_KEY' | 'ENCRYPTION_KEY_PREVIOUS';

// ---- rules across variables: secrets and their _FILE twins -------------------------------------

/** A secret from NAME or NAME_FILE (not both), trimmed; undefined when neither is set. */
function readSecret(vars: Variables, name: SecretName): string | undefined {
  const direct = vars[name];
  const filePath = vars[`${name}_FILE`];
  if (direct !== undefined && filePath !== undefined) {
    throw new ConfigError(name, `both ${name} and ${name}_FILE are set; set only one of them`);
  }
  if (filePath === undefined) return direct;
  let content: string;
  try {
    content = readFileSync(filePath, 'utf8');
  } catch {
    throw new ConfigError(`${name}_FILE`, 'the file cannot be read; point it at a readable file');
  }
  if (content.trim() === '') throw new ConfigError(`${name}_FILE`, 'the file is empty; write the secret into it');
  return content.trim();
}

/** Refuses a weak admin token or encryption key; used for the environment and the secrets file. */
export function checkSecretStrength(secrets: { adminToken: string | null; encryptionKey: string | null }, source = ''): void {
  const token = secrets.adminToken === null ? null : weakAdminTokenReason(secrets.adminToken);
  if (token !== null) throw new ConfigError(`ADMIN_TOKEN${source}`, token);
  const key = secrets.encryptionKey === null ? null : weakEncryptionKeyReason(secrets.encryptionKey);
  if (key !== null) throw new ConfigError(`ENCRYPTION_KEY${source}`, `${key}; to leave a weak key, set it as ENCRYPTION_KEY_PREVIOUS and run jtrace rotate:reencrypt`);
}

function checkSecrets(vars: Variables, requireAdminToken: boolean) {
  const adminToken = readSecret(vars, 'ADMIN_TOKEN') ?? null;
  const encryptionKey = readSecret(vars, 'ENCRYPTION_KEY') ?? null;
  const encryptionKeyPrevious = readSecret(vars, 'ENCRYPTION_KEY_PREVIOUS') ?? null;
  checkSecretStrength({ adminToken, encryptionKey: null });
  if (vars.DATABASE_URL !== undefined && adminToken === null && requireAdminToken) {
    throw new ConfigError('ADMIN_TOKEN', `is required with DATABASE_URL; set it (or ADMIN_TOKEN_FILE) to a secret of at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  }
  if (vars.DATABASE_URL !== undefined && encryptionKey === null) {
    throw new ConfigError('ENCRYPTION_KEY', `is required with DATABASE_URL; set it (or ENCRYPTION_KEY_FILE) to a random secret that ${ENCRYPTION_KEY_RULE.replace(/^must /, '')}`);
  }
  if (encryptionKeyPrevious !== null && encryptionKeyPrevious === encryptionKey) {
    throw new ConfigError('ENCRYPTION_KEY_PREVIOUS', 'is identical to ENCRYPTION_KEY; remove it or set the outgoing key');
  }
  // The outgoing key may be weak: keeping it readable is how an installation leaves it.
  checkSecretStrength({ adminToken: null, encryptionKey });
  return { adminToken, encryptionKey, encryptionKeyPrevious };
}

const list = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');

/** OIDC_ISSUER turns single sign-on on; the client's id, secret and redirect URL are then required. */
function readOidc(vars: Variables): OidcConfig | null {
  if (vars.OIDC_ISSUER === undefined) return null;
  if (vars.OIDC_CLIENT_ID === undefined) throw new ConfigError('OIDC_CLIENT_ID', 'is required with OIDC_ISSUER; set it to the client id the provider gave jtrace');
  if (vars.OIDC_CLIENT_SECRET !== undefined && vars.OIDC_CLIENT_SECRET_FILE !== undefined) {
    throw new ConfigError('OIDC_CLIENT_SECRET', 'both OIDC_CLIENT_SECRET and OIDC_CLIENT_SECRET_FILE are set; set only one of them');
  }
  let secret = vars.OIDC_CLIENT_SECRET;
  if (vars.OIDC_CLIENT_SECRET_FILE !== undefined) {
    try {
      secret = readFileSync(vars.OIDC_CLIENT_SECRET_FILE, 'utf8').trim() || undefined;
    } catch {
      throw new ConfigError('OIDC_CLIENT_SECRET_FILE', 'the file cannot be read; point it at a readable file');
    }
  }
  if (secret === undefined) throw new ConfigError('OIDC_CLIENT_SECRET', 'is required with OIDC_ISSUER; set it (or OIDC_CLIENT_SECRET_FILE) to the client secret');
  if (vars.OIDC_REDIRECT_URL === undefined) throw new ConfigError('OIDC_REDIRECT_URL', 'is required with OIDC_ISSUER; set it to https://<your jtrace address>/ui/api/oidc/callback');
  return {
    issuer: vars.OIDC_ISSUER,
    clientId: vars.OIDC_CLIENT_ID,
    clientSecret: secret,
    redirectUrl: vars.OIDC_REDIRECT_URL,
    allowedDomains: list(vars.OIDC_ALLOWED_DOMAINS),
    defaultRole: vars.OIDC_DEFAULT_ROLE,
    defaultProjects: list(vars.OIDC_DEFAULT_PROJECTS),
  };
}

const PUBLIC_URL_EXAMPLE = 'for example https://jtrace.example.com or http://10.0.0.5:8080';

/** PUBLIC_URL as an origin: scheme, host and port only, so there is one way to write it. */
function parsePublicUrl(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_URL', `must be an absolute http:// or https:// URL, ${PUBLIC_URL_EXAMPLE}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_URL', `must start with http:// or https://, ${PUBLIC_URL_EXAMPLE}`);
  }
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || /[?#]/.test(raw)) {
    throw new ConfigError('PUBLIC_URL', `must hold only scheme, host and port (no path, query or credentials), ${PUBLIC_URL_EXAMPLE}`);
  }
  return url.origin;
}

const schema = z.object(VARIABLES);

/**
 * Parses the process environment once. The CLI passes requireAdminToken false: it never
 * checks the admin token, only the server does. Throws ConfigError naming the first bad variable.
 * Secrets are trimmed; in embedded mode (no DATABASE_URL) missing secrets are allowed
 * here and generated later by the entry point.
 */
export function loadConfig(env: Env, options: { requireAdminToken?: boolean } = {}): Config {
  // Only the variables we know: the rest of the environment is none of our business.
  const known = Object.fromEntries(Object.keys(VARIABLES).map((name) => [name, env[name]]));
  const parsed = schema.safeParse(known);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0]), issue.message);
  }
  const vars = parsed.data;
  const secrets = checkSecrets(vars, options.requireAdminToken !== false);
  return {
    roles: parseRoles(vars.JTRACE_ROLES),
    databaseUrl: vars.DATABASE_URL ?? null,
    databaseReadUrl: readUrl(vars),
    readReplicaMaxLagMs: vars.READ_REPLICA_MAX_LAG_MS,
    host: vars.HOST,
    port: vars.PORT,
    metricsHost: vars.METRICS_HOST,
    metricsPort: vars.METRICS_PORT ?? null,
    ...secrets,
    defaultRetentionDays: vars.DEFAULT_RETENTION_DAYS,
    statementTimeoutMs: vars.DATABASE_STATEMENT_TIMEOUT_MS,
    poolMax: vars.DATABASE_POOL_MAX,
    maxEventPayloadBytes: vars.MAX_EVENT_PAYLOAD_BYTES,
    allowFullPayloadCapture: vars.ALLOW_FULL_PAYLOAD_CAPTURE === 'true',
    replayAllowedHosts:
hostList(vars.REPLAY_ALLOWED_HOSTS),
    trustedProxyCount: vars.TRUSTED_PROXY_COUNT,
    retentionSweepIntervalMs: vars.RETENTION_SWEEP_INTERVAL_MS,
    auditRetentionDays: vars.AUDIT_RETENTION_DAYS,
    logLevel: vars.LOG_LEVEL,
    publicOrigin: parsePublicUrl(vars.PUBLIC_URL),
    embeddedPgPort: vars.EMBEDDED_PG_PORT,
    dataDir: vars.JTRACE_DATA_DIR,
    otlpEnabled: vars.OTLP_ENABLED === 'true',
    otlpMaxRequestBytes: vars.OTLP_MAX_REQUEST_BYTES,
    ingestCoalesceMaxWaitMs: vars.INGEST_COALESCE_MAX_WAIT_MS,
    ingestCoalesceMaxEvents: vars.INGEST_COALESCE_MAX_EVENTS,
    findingsAnalyzerEnabled: vars.FINDINGS_ANALYZER_ENABLED === 'true',
    findingsAnalyzerBusyShare: vars.FINDINGS_ANALYZER_BUSY_SHARE,
    alertAllowedHosts: hostList(vars.ALERT_ALLOWED_HOSTS),
    sessionIdleMinutes: vars.SESSION_IDLE_MINUTES,
    sessionMaxHours: vars.SESSION_MAX_HOURS,
    oidc: readOidc(vars),
  };
}

/** A replica of the embedded database makes no sense: DATABASE_READ_URL needs DATABASE_URL. */
function readUrl(vars: Variables): string | null {
  if (vars.DATABASE_READ_URL === undefined) return null;
  if (vars.DATABASE_URL === undefined) throw new ConfigError('DATABASE_READ_URL', 'needs DATABASE_URL; set DATABASE_URL to the primary, or unset DATABASE_READ_URL');
  return vars.DATABASE_READ_URL;
}

/** JTRACE_ROLES: a comma-separated subset of INSTANCE_ROLES, in their canonical order. */
export function parseRoles(value: string): InstanceRole[] {
  const named = value.split(',').map((role) => role.trim().toLowerCase()).filter((role) => role !== '');
  const unknown = named.find((role) => !(INSTANCE_ROLES as readonly string[]).includes(role));
  if (unknown !== undefined || named.length === 0) {
    throw new ConfigError('JTRACE_ROLES', `must be a comma-separated list of ${INSTANCE_ROLES.join(', ')} (got ${unknown === undefined ? 'none' : 'an unknown role'})`);
  }
  return INSTANCE_ROLES.filter((role) => named.includes(role));
}

/** A comma-separated host list, lower-cased; null when the variable is unset. */
function hostList(value: string | undefined): string[] | null {
  return value === undefined
    ? null
    : value
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h !== '');
}
