// GET /v1/instance (owners): what the Instance settings page shows. The same functions answer
// `jtrace rotate:status` and `jtrace doctor`; only the checks that apply to a server that is
// already running are run (its configuration and secrets were checked at start), and no check
// detail quotes a secret, a connection string or a stored value (src/doctor/checks.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireAdmin, type AuthContext } from '../auth/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { appliedVersions, latestVersion, listMigrations } from '../db/migrate.ts';
import type { Pool } from '../db/pool.ts';
import { checkDatabase, checkKeys, checkMigrations, checkRole, describeError, type CheckResult } from '../doctor/checks.ts';
import type { BuildInfo } from '../health/build-info.ts';
import { instanceSchema } from '../http/answer-schemas/project-settings.ts';
import { dataOf } from '../http/answers.ts';
import { defineRoute } from '../http/route-contract.ts';
import { countKeyUsage, KIND_LABELS, MOVABLE_KINDS, notUnderCurrentKey } from '../rotation/key-usage.ts';

export interface InstanceDeps {
  auth: AuthContext;
  pool: Pool;
  keyring: Keyring;
  build: BuildInfo;
  otlpEnabled: boolean;
  allowFullPayloadCapture: boolean;
}

/** A check that cannot run is reported, never thrown: the page shows the others. */
async function safely(check: string, run: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await run();
  } catch (error) {
    return { status: 'fail', check, detail: `could not run (${describeError(error)})` };
  }
}

export function registerInstanceRoutes(app: FastifyInstance, deps: InstanceDeps): void {
  defineRoute(app, {
    method: 'GET',
    url: '/v1/instance',
    contract: {
      summary: 'Version, migrations, key rotation status and server checks (owners)',
      tag: 'settings',
      credential: (request: FastifyRequest) => requireAdmin(request, deps.auth),
      security: ['adminToken'],
      query: {},
      answers: { 200: { description: 'The instance.', schema: dataOf(instanceSchema) } },
      errors: ['unauthorized', 'forbidden', 'too_many_attempts', 'invalid_query', 'bad_url', 'query_timeout', 'internal_error'],
    },
    handler: async () => {
      const db = deps.pool;
      const applied = await appliedVersions(db);
      const done = new Set(applied);
      const usage = await countKeyUsage(db, deps.keyring);
      const checks = [
        await safely('database', () => checkDatabase(db)),
        await safely('role', () => checkRole(db)),
        await safely('migrations', () => checkMigrations(db)),
        await safely('keys', () => checkKeys(db, deps.keyring)),
      ];
      return {
        data: {
          version: deps.build.version,
          commit: deps.build.commit ?? null,
          buildSource: deps.build.source,
          migrations: { applied, latest: latestVersion(), pending: listMigrations().filter((m) => !done.has(m.version)).length },
          keyRotation: {
            currentKeyId: deps.keyring.currentKeyId,
            previousKeyId: deps.keyring.previousKeyId,
            kinds: MOVABLE_KINDS.map((kind) => ({ kind, label: KIND_LABELS[kind], ...usage[kind] })),
            apiKeys: usage.apiKeys,
            done: notUnderCurrentKey(usage) === 0,
          },
          checks,
          otlpEnabled: deps.otlpEnabled,
          fullPayloadCaptureAllowed: deps.allowFullPayloadCapture,
        },
      };
    },
  });
}
