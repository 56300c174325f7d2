import { readFileSync } from 'node:fs';
import { z } from 'zod';

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

export const MIN_ADMIN_TOKEN_LENGTH = 32;
/** Bounds of MAX_EVENT_PAYLOAD_BYTES in bytes, fixed by the event protocol (9.1). */
export const MIN_EVENT_PAYLOAD_BYTES = 1024;
export const MAX_EVENT_PAYLOAD_BYTES_CEILING = 1_048_576;

/** Bounds and default of OTLP_MAX_REQUEST_BYTES in bytes: 4 MiB matches OTLP exporters' batches. */
export const DEFAULT_OTLP_MAX_REQUEST_BYTES = 4_194_304;
export const MIN_OTLP_MAX_REQUEST_BYTES = 1024;
export const MAX_OTLP_MAX_REQUEST_BYTES = 67_108_864;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface Config {
  databaseUrl: string | null;
  host: string;
  port: number;
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
  logLevel: (typeof LOG_LEVELS)[number];
  /** OTLP_ENABLED: serve POST /v1/traces and /v1/logs (docs/otlp.md). */
  otlpEnabled: boolean;
  /** OTLP_MAX_REQUEST_BYTES: cap on an OTLP body, sent and inflated. */
  otlpMaxRequestBytes: number;
}

type Env = Record<string, string | undefined>;

/** Blank means unset, everywhere. */
function read(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined || value.trim() === '') return undefined;
  return value;
}

function readSecret(env: Env, name: string): string | undefined {
  const direct = read(env, name);
  const filePath = read(env, `${name}_FILE`);
  if (direct !== undefined && filePath !== undefined) {
    throw new ConfigError(name, `both ${name} and ${name}_FILE are set; set only one of them`);
  }
  if (filePath !== undefined) {
    let content: string;
    try {
      content = readFileSync(filePath.trim(), 'utf8');
    } catch {
      throw new ConfigError(`${name}_FILE`, 'the file cannot be read; point it at a readable file');
    }
    if (content.trim() === '') {
      throw new ConfigError(`${name}_FILE`, 'the file is empty; write the secret into it');
    }
    return content.trim();
  }
  return direct?.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const parsed = z.coerce.number().int().min(min).max(max).safeParse(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !parsed.success) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got an invalid value)`);
  }
  return parsed.data;
}

function port(env: Env, name: string, fallback: number | null): number | null {
  if (read(env, name) === undefined) return fallback;
  return integer(env, name, 0, 1, 65535);
}

function boolean(env: Env, name: string): boolean {
  const raw = read(env, name)?.trim();
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(name, 'must be true or false');
}

/**
 * Parses the process environment once. The CLI passes requireAdminToken false: it never
 * checks the admin token, only the server does. Throws ConfigError naming the first bad variable.
 * Secrets are trimmed; in embedded mode (no DATABASE_URL) missing secrets are allowed
 * here and generated later by the entry point.
 */
export function loadConfig(env: Env, options: { requireAdminToken?: boolean } = {}): Config {
  const databaseUrl = read(env, 'DATABASE_URL')?.trim() ?? null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// connection URL');
  }
  const adminToken = readSecret(env, 'ADMIN_TOKEN') ?? null;
  const encryptionKey = readSecret(env, 'ENCRYPTION_KEY') ?? null;
  const encryptionKeyPrevious = readSecret(env, 'ENCRYPTION_KEY_PREVIOUS') ?? null;

  if (adminToken !== null && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError('ADMIN_TOKEN', `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters after trimming`);
  }
  if (databaseUrl !== null && adminToken === null && options.requireAdminToken !== false) {
    throw new ConfigError('ADMIN_TOKEN', `is required with DATABASE_URL; set it (or ADMIN_TOKEN_FILE) to a secret of at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  }
  if (databaseUrl !== null && encryptionKey === null) {
    throw new ConfigError('ENCRYPTION_KEY', 'is required with DATABASE_URL; set it (or ENCRYPTION_KEY_FILE) to a long random secret');
  }
  if (encryptionKeyPrevious !== null && encryptionKeyPrevious === encryptionKey) {
    throw new ConfigError('ENCRYPTION_KEY_PREVIOUS', 'is identical to ENCRYPTION_KEY; remove it or set the outgoing key');
  }

  const hostsRaw = read(env, 'REPLAY_ALLOWED_HOSTS');
  const logLevel = (read(env, 'LOG_LEVEL')?.trim() ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }

  return {
    databaseUrl,
    host: read(env, 'HOST')?.trim() ?? '127.0.0.1',
    port: port(env, 'PORT', 8080) ?? 8080,
    metricsPort: port(env, 'METRICS_PORT', null),
    adminToken,
    encryptionKey,
    encryptionKeyPrevious,
    defaultRetentionDays: integer(env, 'DEFAULT_RETENTION_DAYS', 30, 1, 36_500),
    statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 15_000, 0, 2_147_483_647),
    poolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    maxEventPayloadBytes: integer(
      env,
      'MAX_EVENT_PAYLOAD_BYTES',
      262_144,
      MIN_EVENT_PAYLOAD_BYTES,
      MAX_EVENT_PAYLOAD_BYTES_CEILING,
    ),
    allowFullPayloadCapture: boolean(env, 'ALLOW_FULL_PAYLOAD_CAPTURE'),
    replayAllowedHosts:
      hostsRaw === undefined
        ? null
        : hostsRaw
            .split(',')
            .map((h) => h.trim().toLowerCase())
            .filter((h) => h !== ''),
    trustedProxyCount: integer(env, 'TRUSTED_PROXY_COUNT', 0, 0, 64),
    retentionSweepIntervalMs: integer(env, 'RETENTION_SWEEP_INTERVAL_MS', 3_600_000, 1000, 2_147_483_647),
    logLevel,
    otlpEnabled: boolean(env, 'OTLP_ENABLED'),
    otlpMaxRequestBytes: integer(
      env,
      'OTLP_MAX_REQUEST_BYTES',
      DEFAULT_OTLP_MAX_REQUEST_BYTES,
      MIN_OTLP_MAX_REQUEST_BYTES,
      MAX_OTLP_MAX_REQUEST_BYTES,
    ),
  };
}
