import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config/config.ts';
import { loadHttpLimits } from './config/http-limits.ts';
import { createKeyring } from './crypto/keyring.ts';
import { migrate } from './db/migrate.ts';
import { createPool } from './db/pool.ts';
import { createReadReplica } from './db/read-replica.ts';
import { APPLICATION_ROLE_FIX, connectsAsSuperuser } from './db/role.ts';
import { startRetentionSweeper } from './deletion/retention-sweep.ts';
import { startEventPartitionUpkeep } from './db/event-partitions.ts';
import { startAlertDispatcher } from './alerts/dispatcher.ts';
import { analyzerPacer, startAnalyzer } from './findings/analyzer.ts';
import { startLooseTokenBackfill } from './loose-backfill/backfill.ts';
import { startProblemReplayRunner } from './problem-replay/runner.ts';
import { readBuildInfo } from './health/build-info.ts';
import { createMetrics } from './metrics/metrics.ts';
import { startMetricsServer } from './metrics/server.ts';
import { recordKeySuccession, supersedingKeyId } from './rotation/key-mismatch.ts';
import { reportUnreadableValues } from './rotation/startup-check.ts';
import { openDatabase } from './runtime/database.ts';
import { requireSessionPooling } from './runtime/pooling-guard.ts';
import { isLoopbackHost } from './runtime/loopback.ts';
import { resolveSecrets } from './runtime/secrets.ts';

/** The built web interface: src/main.ts and dist/main.js both sit one level below the repository. */
const WEB_ROOT = fileURLToPath(new URL('../web/dist', import.meta.url));
/** In-flight requests get this long to finish at shutdown before connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config;
  let httpLimits;
  try {
    config = loadConfig(process.env);
    httpLimits = loadHttpLimits(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`jtrace: configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = pino({ level: config.logLevel, base: { service: 'jtrace' } });
  const secrets = resolveSecrets(config, config.dataDir);
  const keyring = createKeyring({ current: secrets.encryptionKey, previous: secrets.encryptionKeyPrevious });

  const database = await openDatabase(config, { applicationName: 'jtrace-server' });
  const embedded = database.embedded !== null;
  // A pooler that shares server sessions (PgBouncer's transaction or statement mode) would break
  // the jobs' advisory locks and the named statements without an error: refuse it (docs/deployment.md).
  const poolingGuard = embedded ? null : await requireSessionPooling(database.pool, {
    logger,
    onIncompatible: (message) => {
      process.stderr.write(`jtrace: stopping: ${message}\n`);
      process.exit(1);
    },
  });
  if (embedded) {
    // Embedded mode applies migrations itself; production runs `jtrace migrate` before a deploy.
    const applied = await migrate(database.pool);
    if (applied.length > 0) logger.info({ applied: applied.map((m) => m.version) }, 'migrations applied');
  }
  const effectiveConfig = {
    ...config,
    replayAllowedHosts: config.replayAllowedHosts ?? (embedded ? ['localhost', '127.0.0.1'] : []),
  };

  // A server with a previous key is the newer side of a rotation: processes still on the
  // outgoing key refuse erasures and keyed commands from now on (docs/operations.md).
  await recordKeySuccession(database.pool, keyring).catch((error: unknown) => {
    logger.warn({ err: { type: (error as Error).name, code: (error as { code?: unknown }).code } }, 'the key rotation could not be recorded');
  });
  if ((await supersedingKeyId(database.pool, keyring).catch(() => null)) !== null) {
    logger.warn('ENCRYPTION_KEY has been replaced by a newer key: erasures answer 503 key_superseded; restart with the new ENCRYPTION_KEY and this one as ENCRYPTION_KEY_PREVIOUS');
  }
  const metrics = createMetrics(database.pool);
  // Stale-tolerant reads may go to a standby (docs/deployment.md, "Read replicas"). A replica that
  // does not answer within 2 s is given up for the primary: a read never waits on it for long.
  const replicaPool = config.databaseReadUrl === null ? null : createPool({
    connectionString: config.databaseReadUrl,
    max: config.poolMax,
    statementTimeoutMs: config.statementTimeoutMs,
    applicationName: 'jtrace-server-reads',
    connectionTimeoutMs: 2_000,
  });
  const readReplica = replicaPool === null ? null : createReadReplica({
    primary: database.pool,
    replica: replicaPool,
    maxLagMs: config.readReplicaMaxLagMs,
    onRoute: (target, reason) => metrics.readsRouted.inc({ target, reason }),
  });
  readReplica?.start();
  const app = await buildApp({
    config: effectiveConfig,
    pool: database.pool,
    keyring,
    adminToken: secrets.adminToken,
    logger,
    metrics,
    build: readBuildInfo(),
    httpLimits,
    webRoot: WEB_ROOT,
    ...(readReplica === null ? {} : { readReplica }),
  });
  // An instance runs only the jobs of its roles (JTRACE_ROLES, docs/deployment.md).
  const worker = config.roles.includes('worker');
  // Today's partition of events exists before the first event arrives (a server down for days):
  // ingestion needs it, so ingest instances keep it as well as workers (the job takes a lock).
  const partitionUpkeep = worker || config.roles.includes('ingest') ? startEventPartitionUpkeep({ pool: database.pool, logger }) : null;
  await partitionUpkeep?.firstRun;
  await app.listen({ host: config.host, port: config.port });
  const metricsServer = config.metricsPort === null ? null : await startMetricsServer(metrics, config.metricsHost, config.metricsPort);
  // Unreadable stored data is reported, never fatal (interface-spec 5): a count per table, no
  // values. It scans the identifier tables, so it runs beside traffic rather than before listening.
  const unreadableCheck = worker ? reportUnreadableValues(database.pool, keyring, metrics, logger) : Promise.resolve();
  // Never fatal (an installation may need time to create its role), but said at every start.
  const roleCheck = connectsAsSuperuser(database.pool).then(
    (superuser) => {
      if (superuser) logger.warn(`DATABASE_URL connects as a superuser; ${APPLICATION_ROLE_FIX}`);
    },
    () => undefined,
  );
  const sweeper = !worker ? null : startRetentionSweeper({
    pool: database.pool,
    logger,
    metrics,
    intervalMs: config.retentionSweepIntervalMs,
    auditRetentionDays: config.auditRetentionDays,
    sessionLimits: { idleMinutes: config.sessionIdleMinutes, maxHours: config.sessionMaxHours },
  });
  // Every instance may analyse; the advisory lock lets one at a time (docs/findings.md).
  // Paced while other work uses the database, at full speed when none does (docs/findings.md, "Pacing").
  const pacer = analyzerPacer(database.pool, config.findingsAnalyzerBusyShare, metrics);
  const analyzer = worker && config.findingsAnalyzerEnabled ? startAnalyzer({ pool: database.pool, keyring, logger, metrics, pacer }) : null;
  // Alerts are opt-in: with no rule nothing is queued, so nothing is sent (docs/alerts.md).
  // Loose search tokens for aliases stored before loose matching or under a replaced key.
  const looseBackfill = worker ? startLooseTokenBackfill({ pool: database.pool, keyring, logger }) : null;
  const alerts = !worker ? null : startAlertDispatcher({ pool: database.pool, keyring, logger, metrics, allowedHosts: config.alertAllowedHosts ?? [], version: readBuildInfo().version });
  // Batch replays stored by any instance run on a worker; a restarted one resumes them (docs/problems.md).
  const problemReplays = !worker ? null : startProblemReplayRunner({ pool: database.pool, keyring, allowedHosts: effectiveConfig.replayAllowedHosts, version: readBuildInfo().version, now: Date.now, logger });
  if (secrets.generatedFile !== null) {
    logger.info({ file: secrets.generatedFile }, 'embedded mode: the admin token is in ADMIN_TOKEN of this file');
  }
  if (!isLoopbackHost(config.host)) {
    // Credentials travel in clear over plain HTTP: beyond loopback a TLS proxy must sit in front.
    logger.warn({ host: config.host }, 'HOST is beyond loopback and jtrace serves plain HTTP: put a TLS-terminating proxy in front of it');
  }
  if (!embedded && config.publicOrigin === null) {
    // A DNS-rebinding page can name any host; without PUBLIC_URL only addresses it cannot are accepted.
    logger.warn('PUBLIC_URL is unset: the web interface accepts sign-in only when reached by IP address or localhost; set PUBLIC_URL to the address people use');
  }
  logger.info({ url: `http://${config.host}:${config.port}`, embeddedDatabase: embedded, roles: config.roles }, 'jtrace is listening');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    poolingGuard?.stop();
    const force = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    force.unref();
    try {
      // The sweep ends its current batch while requests drain; both finish before the pool closes.
      await Promise.all([app.close(), sweeper?.stop(), partitionUpkeep?.stop(), analyzer?.stop(), alerts?.stop(), looseBackfill?.stop(), problemReplays?.stop(), unreadableCheck, roleCheck]);
      await readReplica?.stop();
      await replicaPool?.end();
      await metricsServer?.close();
      await database.close();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: { type: (error as Error).name } }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`jtrace: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
