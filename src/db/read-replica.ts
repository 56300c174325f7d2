import { isDatabaseUnavailable, type Pool, type Queryable } from './pool.ts';

/** Where a read that tolerates a little staleness went, and why (service_reads_routed_total). */
export type ReadTarget = 'replica' | 'primary';
export type ReadReason = 'in_sync' | 'lag' | 'fresh_write' | 'unavailable';
export const READ_ROUTES: ReadonlyArray<{ target: ReadTarget; reason: ReadReason }> = [
  { target: 'replica', reason: 'in_sync' },
  { target: 'primary', reason: 'lag' },
  { target: 'primary', reason: 'fresh_write' },
  { target: 'primary', reason: 'unavailable' },
];

/** Default of READ_REPLICA_MAX_LAG_MS in ms. */
export const DEFAULT_READ_REPLICA_MAX_LAG_MS = 1000;
/** How often each instance measures the replica's lag, in ms: a few hundred keeps the reading close. */
export const DEFAULT_LAG_SAMPLE_INTERVAL_MS = 250;
/** Samples of the primary's WAL position kept to date the replica's replay position, in ms. */
const HISTORY_MS = 120_000;

export interface ReadReplicaOptions {
  primary: Pool;
  replica: Pool;
  maxLagMs: number;
  sampleIntervalMs?: number;
  now?: () => number;
  /** Called once per routed read (metrics). */
  onRoute?: (target: ReadTarget, reason: ReadReason) => void;
}

export interface ReplicaState {
  /** The measured lag in ms; null while the replica is unreachable or not yet measured. */
  lagMs: number | null;
  /** True when stale-tolerant reads go to the replica now. */
  inUse: boolean;
}

export interface ReadReplica {
  /**
   * The database one request's stale-tolerant reads use: the replica when it is reachable, its lag
   * at most maxLagMs and the requester did not write just before (freshWrite); else the primary.
   */
  reader(options: { freshWrite: boolean }): Queryable;
  state(): ReplicaState;
  /** Takes one sample now (the sampler's tick; tests call it to avoid waiting). */
  sample(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

/** PostgreSQL's text form of an LSN (`16/B374D848`) as a number of bytes (exact up to 2^53). */
export function lsnBytes(lsn: string): number {
  const [high, low] = lsn.split('/');
  return parseInt(high!, 16) * 2 ** 32 + parseInt(low!, 16);
}

/**
 * How long the replica has been behind, in ms: the age of the oldest primary position it has not
 * replayed yet. The replay timestamp is not used: on an idle primary it dates the last
 * transaction, however long ago, although nothing is missing. Equal positions mean no lag.
 */
export function lagFromHistory(history: ReadonlyArray<{ at: number; lsn: number }>, replayed: number, now: number): number {
  const behind = history.find((sample) => sample.lsn > replayed);
  return behind === undefined ? 0 : Math.max(0, now - behind.at);
}

/** Failures after which the same read is run on the primary: the replica is gone or cancelled it for replay. */
function replicaFailed(error: unknown): boolean {
  // 40001 on a standby: "canceling statement due to conflict with recovery".
  return isDatabaseUnavailable(error) || (error as { code?: unknown } | null)?.code === '40001';
}

export function createReadReplica(options: ReadReplicaOptions): ReadReplica {
  const now = options.now ?? Date.now;
  const interval = options.sampleIntervalMs ?? DEFAULT_LAG_SAMPLE_INTERVAL_MS;
  const history: Array<{ at: number; lsn: number }> = [];
  let lagMs: number | null = null;
  let measuredAt = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  const route = (target: ReadTarget, reason: ReadReason) => options.onRoute?.(target, reason);
  // A reading older than a few ticks is not trusted: the sampler itself may be stuck on a dead host.
  const fresh = () => lagMs !== null && now() - measuredAt <= Math.max(4 * interval, 2000);
  const inUse = () => fresh() && lagMs! <= options.maxLagMs;

  const onReplica: Queryable = {
    query: (async (...args: unknown[]) => {
      try {
        return await (options.replica.query as (...a: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        if (!replicaFailed(error)) throw error;
        if (isDatabaseUnavailable(error)) lagMs = null;
        route('primary', 'unavailable');
        return (options.primary.query as (...a: unknown[]) => Promise<unknown>)(...args);
      }
    }) as Queryable['query'],
  };

  async function sampleOnce(): Promise<void> {
    try {
      // The primary first: a replica that has replayed this position had every commit made before it.
      const primary = await options.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      const at = now();
      const position = lsnBytes(primary.rows[0]!.lsn);
      // A failover resets positions: keep only samples older positions cannot outrank.
      while (history.length > 0 && (history[history.length - 1]!.lsn > position || history[0]!.at < at - HISTORY_MS)) {
        if (history[history.length - 1]!.lsn > position) history.length = 0;
        else history.shift();
      }
      if (history.length === 0 || history[history.length - 1]!.lsn < position) history.push({ at, lsn: position });
      const replica = await options.replica.query<{ replayed: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS replayed');
      const replayed = replica.rows[0]!.replayed;
      // null: the server at DATABASE_READ_URL is not a standby (promoted, or a primary): not used.
      lagMs = replayed === null ? null : lagFromHistory(history, lsnBytes(replayed), now());
      measuredAt = now();
    } catch {
      lagMs = null;
    }
  }

  const tick = () => {
    running ??= sampleOnce().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    reader({ freshWrite }) {
      if (!inUse()) {
        route('primary', fresh() ? 'lag' : 'unavailable');
        return options.primary;
      }
      if (freshWrite) {
        route('primary', 'fresh_write');
        return options.primary;
      }
      route('replica', 'in_sync');
      return onReplica;
    },
    state: () => ({ lagMs: fresh() ? lagMs : null, inUse: inUse() }),
    sample: tick,
    start() {
      if (timer !== null) return;
      void tick();
      timer = setInterval(() => void tick(), interval);
      timer.unref();
    },
    async stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
