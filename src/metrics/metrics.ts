import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Pool } from '../db/pool.ts';
import { READ_ROUTES } from '../db/read-replica.ts';

/** Tables whose values `service_unreadable_values` counts (src/rotation/key-usage.ts). */
export const UNREADABLE_VALUE_TABLES = ['journeys', 'journey_aliases', 'search_tokens', 'replay_destinations', 'api_keys'] as const;

/** Label values of service_otlp_records_total. */
export const OTLP_SIGNALS = ['traces', 'logs'] as const;
export const OTLP_RESULTS = ['accepted', 'duplicate', 'rejected', 'skipped'] as const;

/** Label values of service_findings_stored_total (the kinds of src/findings/analyze.ts). */
export const FINDING_KIND_LABELS = ['lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step'] as const;

/** Label values of service_password_verifications_total and service_password_sign_ins_throttled_total. */
export const PASSWORD_VERIFICATION_OUTCOMES = ['accepted', 'refused'] as const;
export const SIGN_IN_THROTTLE_REASONS = ['address', 'account', 'busy'] as const;

/** The seven methods jtrace answers; anything else is counted as `other`. */
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}

/** Every series is declared here once, with fixed label names (interface spec, Metrics). */
export function createMetrics(pool?: Pool) {
  const registry = new Registry();
  const httpRequests = new Counter({
    name: 'service_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'service_http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const events = new Counter({
    name: 'service_events_total',
    help: 'Ingested events by result (dry runs are not counted).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  for (const result of ['accepted', 'duplicate', 'rejected']) events.inc({ result }, 0);
  const otlpRecords = new Counter({
    name: 'service_otlp_records_total',
    help: 'OTLP spans and log records received, by signal and result (skipped: no journey attributes).',
    labelNames: ['signal', 'result'] as const,
    registers: [registry],
  });
  for (const signal of OTLP_SIGNALS) {
    for (const result of OTLP_RESULTS) otlpRecords.inc({ signal, result }, 0);
  }
  const queryTimeouts = new Counter({
    name: 'service_query_timeouts_total',
    help: 'Statements cancelled by the statement timeout, by route pattern.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'service_db_pool_connections',
    help: 'Database pool connections by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    // Read at scrape time, so the gauge is never stale.
    collect() {
      this.set({ state: 'used' }, pool ? pool.totalCount - pool.idleCount : 0);
      this.set({ state: 'free' }, pool ? pool.idleCount : 0);
      this.set({ state: 'pending' }, pool ? pool.waitingCount : 0);
    },
  });
  const retentionRuns = new Counter({
    name: 'service_retention_sweep_runs_total',
    help: 'Retention sweeps by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['completed', 'locked', 'stopped_early', 'failed']) retentionRuns.inc({ outcome }, 0);
  const retentionDeleted = new Counter({
    name: 'service_retention_journeys_deleted_total',
    help: 'Journeys deleted by retention sweeps.',
    registers: [registry],
  });
  const retentionLastSuccess = new Gauge({
    name: 'service_retention_last_success_timestamp_seconds',
    help: 'Unix time of the last retention sweep that completed.',
    registers: [registry],
  });
  const unreadableValues = new Gauge({
    name: 'service_unreadable_values',
    help: 'Stored values no configured encryption key can read, by table.',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  // Zero until the start-up check has counted, so every table's series exists from the start.
  for (const table of UNREADABLE_VALUE_TABLES) unreadableValues.set({ table }, 0);
  const findingsAnalysed = new Counter({
    name: 'service_findings_journeys_analysed_total',
    help: 'Journeys whose findings the analyzer computed and stored.',
    registers: [registry],
  });
  const findingsStored = new Counter({
    name: 'service_findings_stored_total',
    help: 'Findings stored by the analyzer, by kind (a journey analysed again counts its findings again).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  for (const kind of FINDING_KIND_LABELS) findingsStored.inc({ kind }, 0);
  const analyzerPacedSeconds = new Counter({
    name: 'service_findings_analyzer_paced_seconds_total',
    help: 'Seconds the findings analyzer paused between batches to leave the database and the cores to other work.',
    registers: [registry],
  });
  const analyzerBatches = new Counter({
    name: 'service_findings_analyzer_batches_total',
    help: 'Batches the findings analyzer stored.',
    registers: [registry],
  });
  // The lag is read from the database at scrape time, so every instance reports it, not only
  // the one analysing; the findings capability supplies the reader (kernel folders import no capability).
  let findingsLagReader: (() => Promise<number>) | null = null;
  new Gauge({
    name: 'service_findings_lag_seconds',
    help: 'Seconds since the oldest journey change still waiting for the findings analyzer (0 when none).',
    registers: [registry],
    async collect() {
      this.set(findingsLagReader === null ? 0 : await findingsLagReader().catch(() => 0));
    },
  });
  const alertsSent = new Counter({
    name: 'service_alerts_sent_total',
    help: 'Alert deliveries answered with a 2xx status.',
    registers: [registry],
  });
  const alertsFailed = new Counter({
    name: 'service_alerts_failed_total',
    help: 'Alert delivery attempts that failed (refused address, error status, timeout), each retry counted.',
    registers: [registry],
  });
  // Single events stored together (src/ingest/coalesce.ts); a group is at most a batch's size.
  const coalescedGroupEvents = new Histogram({
    name: 'service_ingest_coalesced_group_events',
    help: 'Events per shared transaction of POST /v1/events (1 when a single event was stored alone).',
    buckets: [1, 2, 4, 8, 16, 32, 64, 100],
    registers: [registry],
  });
  const coalesceFallbacks = new Counter({
    name: 'service_ingest_coalesce_fallbacks_total',
    help: 'Shared single-event transactions that failed, so that each of their events was stored on its own.',
    registers: [registry],
  });
  // Password sign-ins (docs/roles.md, "Throttling"): each argon2id verification is counted, so a
  // burst that gets past the limits shows here and not only as CPU time.
  const passwordVerifications = new Counter({
    name: 'service_password_verifications_total',
    help: 'Password sign-ins whose password was verified (argon2id), by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of PASSWORD_VERIFICATION_OUTCOMES) passwordVerifications.inc({ outcome }, 0);
  const passwordSignInsThrottled = new Counter({
    name: 'service_password_sign_ins_throttled_total',
    help: 'Password sign-ins answered 429 before any verification, by the limit that held them (address, account, busy).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of SIGN_IN_THROTTLE_REASONS) passwordSignInsThrottled.inc({ reason }, 0);
  // Read replicas (docs/deployment.md, "Read replicas"): the state is read at scrape time.
  let readReplicaState: (() => { lagMs: number | null; inUse: boolean }) | null = null;
  new Gauge({
    name: 'service_read_replica_lag_seconds',
    help: 'Measured replay lag of DATABASE_READ_URL in seconds (-1 while unreachable or not a standby; absent without a replica).',
    registers: [registry],
    collect() {
      this.reset();
      const state = readReplicaState?.();
      if (state !== undefined) this.set(state.lagMs === null ? -1 : state.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'service_read_replica_in_use',
    help: '1 while stale-tolerant reads go to the read replica, else 0.',
    registers: [registry],
    collect() {
      this.set(readReplicaState?.().inUse === true ? 1 : 0);
    },
  });
  const readsRouted = new Counter({
    name: 'service_reads_routed_total',
    help: 'Stale-tolerant reads by the database they went to and why (in_sync, lag, fresh_write, unavailable).',
    labelNames: ['target', 'reason'] as const,
    registers: [registry],
  });
  for (const { target, reason } of READ_ROUTES) readsRouted.inc({ target, reason }, 0);
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests,
    httpDuration,
    events,
    otlpRecords,
    queryTimeouts,
    retentionRuns,
    retentionDeleted,
    retentionLastSuccess,
    unreadableValues,
    findingsAnalysed,
    findingsStored,
    analyzerBatches,
    analyzerPacedSeconds,
    alertsSent,
    alertsFailed,
    coalescedGroupEvents,
    coalesceFallbacks,
    passwordVerifications,
    passwordSignInsThrottled,
    readsRouted,
    setReadReplicaState(reader: () => { lagMs: number | null; inUse: boolean }) {
      readReplicaState = reader;
    },
    setFindingsLagReader(reader: () => Promise<number>) {
      findingsLagReader = reader;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
