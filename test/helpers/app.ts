import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp, type AppDeps } from '../../src/app.ts';
import { createApiKey } from '../../src/auth/api-key-service.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { createKeyring, type Keyring } from '../../src/crypto/keyring.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { ReadReplica } from '../../src/db/read-replica.ts';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.ts';
import { createProject } from '../../src/projects/projects-sql.ts';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';
export const TEST_ENCRYPTION_KEY = 'test-encryption-key-0123456789abcdefghijklmnop';

export interface TestAppOptions {
  config?: Partial<Config>;
  keyring?: Keyring;
  now?: () => number;
  adminToken?: string;
  /** The built web interface to serve; default none (pages answer 503). */
  webRoot?: string;
  /** A metrics registry shared with the caller (created when omitted). */
  metrics?: Metrics;
  /** A read replica to route stale-tolerant reads to. */
  readReplica?: ReadReplica;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({}), replayAllowedHosts: [], ...overrides };
}

export async function buildTestApp(pool: Pool, options: TestAppOptions = {}): Promise<{ app: FastifyInstance; deps: AppDeps }> {
  const deps: AppDeps = {
    config: testConfig(options.config),
    pool,
    keyring: options.keyring ?? createKeyring({ current: TEST_ENCRYPTION_KEY }),
    adminToken: options.adminToken ?? TEST_ADMIN_TOKEN,
    logger: pino({ level: 'silent' }),
    metrics: options.metrics ?? createMetrics(pool),
    build: { version: '0.0.0', source: 'package' },
    ...(options.now ? { now: options.now } : {}),
    ...(options.webRoot ? { webRoot: options.webRoot } : {}),
    ...(options.readReplica ? { readReplica: options.readReplica } : {}),
  };
  const app = await buildApp(deps);
  await app.ready();
  return { app, deps };
}

export interface SeededProject {
  projectId: string;
  slug: string;
  apiKey: string;
  keyPrefix: string;
}

/** A project with one environment and an API key for it, made as the CLI makes them. */
export async function seedProject(
  pool: Pool,
  keyring: Keyring,
  slug: string,
  environmentName = 'production',
): Promise<SeededProject> {
  const project = await createProject(pool, slug, `Project ${slug}`);
  const key = await createApiKey(pool, keyring, {
    projectSlug: slug,
    environmentName,
    name: 'test key',
    defaultRetentionDays: 30,
  });
  return { projectId: project.id, slug, apiKey: key.apiKey, keyPrefix: key.keyPrefix };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
