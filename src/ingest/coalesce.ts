import { prepareEvent } from './prepare.ts';
import {
  prepareContext,
  refuseSupersededKey,
  storageFailure,
  storeWithRetry,
  toResult,
  type EventResult,
  type IngestDeps,
  type IngestScope,
} from './ingest-service.ts';
import type { StoreInput } from './store.ts';

/**
 * Single events of one environment share transactions: group commit (docs/ingestion.md, "Single
 * events share commits"). One commit per event bounds the single route at the database's commit
 * rate. Here an event is stored at once when nothing of its environment is being stored; while a
 * group's transaction runs, arrivals gather into the next group, which starts as soon as a commit
 * slot frees. The group grows with the time a commit takes, and a lone client waits for nothing.
 * Each request is still answered with its own verdict, only once its event is committed.
 */

export interface CoalesceSettings {
  /**
   * Extra wait, in ms, before a group may start even when a commit slot is free; 0 (the default)
   * adds none: a group starts as soon as a slot is free. A value above 0 trades latency for
   * larger groups on a database whose commits are cheap but whose transactions are not.
   */
  maxWaitMs: number;
  /** A group is started as soon as it holds this many events (a batch's size); 0 disables coalescing. */
  maxEvents: number;
  /**
   * Groups of one environment being stored at once (DEFAULT_MAX_IN_FLIGHT); arrivals gather
   * while this many run, or while one of them is still running its statements.
   */
  maxInFlight?: number;
}

/**
 * Groups of one environment in flight at once. Only one of them is ever running its statements:
 * while it does, the next group gathers instead of starting a small transaction beside it. Two:
 * once a group's statements are done and only its COMMIT is left (on a durable database, the
 * wait for its flush to disk), the next group starts its statements, so that flush overlaps
 * them instead of leaving the environment's connection idle (docs/benchmarks.md, "Single events").
 */
export const DEFAULT_MAX_IN_FLIGHT = 2;

/** How a group came to start: at once (nothing of its environment was being stored) or after gathering. */
export interface GroupStart {
  /** Groups of its environment being stored when it started (0: it started at its first event). */
  inFlightAtStart: number;
  /** Whether its first event waited, behind running groups or the configured wait, before the group started. */
  gathered: boolean;
}

export interface CoalesceObserver {
  /** Called once per stored group with its number of events, as it starts. */
  group(size: number, start?: GroupStart): void;
  /** Called when a group's transaction failed and its events were stored one by one. */
  fallback(): void;
}

interface Member {
  input: StoreInput;
  resolve: (result: EventResult) => void;
}

interface Group {
  key: string;
  scope: IngestScope;
  members: Member[];
  timer: NodeJS.Timeout | null;
  /** The wait (if any) is over: stored as soon as its key has a free slot (`slotFree`). */
  due: boolean;
}

export interface SingleEventCoalescer {
  /** Stores one prepared event with whatever else arrives for its environment; never rejects. */
  store(scope: IngestScope, input: StoreInput): Promise<EventResult>;
  /** Stores every waiting group now (shutdown): no timer is left to wait for. */
  flushAll(): void;
  /** Resolves once every group handed over so far is committed or refused (shutdown). */
  drain(): Promise<void>;
}

export function coalescingEnabled(settings: CoalesceSettings | undefined): settings is CoalesceSettings {
  return settings !== undefined && settings.maxEvents > 0;
}

export function createSingleEventCoalescer(deps: IngestDeps, settings: CoalesceSettings, observer: CoalesceObserver): SingleEventCoalescer {
  const maxInFlight = Math.max(1, settings.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  // Keyed by project and environment: a group is one storeEvents scope, as one batch is.
  // Capture settings were applied per request when its event was prepared.
  const open = new Map<string, Group>();
  const running = new Map<string, number>();
  // Keys with a group running its statements (not yet at its COMMIT): at most one each.
  const writing = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  let flushingAll = false;
  const slotFree = (key: string) => !writing.has(key) && (running.get(key) ?? 0) < maxInFlight;

  const flush = (group: Group, gathered: boolean) => {
    if (open.get(group.key) !== group) return;
    open.delete(group.key);
    if (group.timer !== null) clearTimeout(group.timer);
    const inFlightAtStart = running.get(group.key) ?? 0;
    running.set(group.key, inFlightAtStart + 1);
    writing.add(group.key);
    let wrote = false;
    const statementsDone = () => {
      if (wrote) return;
      wrote = true;
      writing.delete(group.key);
      flushIfDue(group.key);
    };
    observer.group(group.members.length, { inFlightAtStart, gathered });
    const done: Promise<void> = commitGroup(deps, group, observer, statementsDone)
      .catch(() => {
        // Never expected (commitGroup answers every member itself), but no request may hang:
        // a member already answered keeps its answer, a promise settles once.
        for (const member of group.members) {
          member.resolve({ eventId: member.input.prepared.event.id, status: 'rejected', error: storageFailure(null, 'single') });
        }
      })
      .finally(() => {
        inFlight.delete(done);
        const left = running.get(group.key)! - 1;
        if (left === 0) running.delete(group.key);
        else running.set(group.key, left);
        if (wrote) flushIfDue(group.key);
        else statementsDone();
      });
    inFlight.add(done);
  };
  const flushIfDue = (key: string) => {
    const group = open.get(key);
    if (group !== undefined && group.due && slotFree(key)) flush(group, true);
  };

  return {
    store(scope, input) {
      const key = `${scope.projectId}\u0000${scope.environment.id}`;
      const member = new Promise<EventResult>((resolve) => {
        const existing = open.get(key);
        if (existing !== undefined) {
          existing.members.push({ input, resolve });
          if (existing.members.length >= settings.maxEvents || flushingAll) flush(existing, true);
          return;
        }
        const created: Group = { key, scope, members: [{ input, resolve }], timer: null, due: settings.maxWaitMs === 0 };
        open.set(key, created);
        if (created.due) {
          // Group commit: at once when a slot is free, else gathering until one is.
          if (slotFree(key) || flushingAll || settings.maxEvents === 1) flush(created, false);
          return;
        }
        created.timer = setTimeout(() => {
          created.due = true;
          flushIfDue(key);
        }, settings.maxWaitMs);
        if (settings.maxEvents === 1 || flushingAll) flush(created, false);
      });
      return member;
    },
    flushAll() {
      flushingAll = true;
      for (const group of [...open.values()]) flush(group, true);
    },
    async drain() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}

/**
 * One transaction for the group, verdicts decided in arrival order exactly as in a batch (a
 * second copy of an event id is a duplicate or a conflict). When that transaction fails, each
 * event is stored on its own, concurrently, as separate requests would be: the failing event is
 * refused with the single route's answer and its neighbours are stored.
 */
async function commitGroup(deps: IngestDeps, group: Group, observer: CoalesceObserver, statementsDone: () => void): Promise<void> {
  const { members, scope } = group;
  try {
    const verdicts = await storeWithRetry(deps, scope, members.map((m) => m.input), statementsDone);
    verdicts.forEach((verdict, i) => members[i]!.resolve(toResult(verdict)));
    deps.warmup?.record(verdicts.filter((v) => v.status === 'accepted' && !v.duplicate).length);
    return;
  } catch {
    observer.fallback();
  }
  await Promise.all(members.map((member) => storeAlone(deps, scope, member)));
}

async function storeAlone(deps: IngestDeps, scope: IngestScope, { input, resolve }: Member): Promise<void> {
  try {
    const [verdict] = await storeWithRetry(deps, scope, [input]);
    const result = toResult(verdict!);
    if (result.status === 'accepted' && !result.duplicate) deps.warmup?.record(1);
    resolve(result);
  } catch (error) {
    deps.logger.warn({ err: { code: (error as { code?: string }).code } }, 'event could not be stored');
    resolve({ eventId: input.prepared.event.id, status: 'rejected', error: storageFailure(error, 'single') });
  }
}

/** POST /v1/events through the coalescer: prepared in memory per request, stored with its neighbours. */
export async function ingestCoalesced(
  deps: IngestDeps,
  coalescer: SingleEventCoalescer,
  scope: IngestScope,
  envelope: unknown,
): Promise<EventResult> {
  await refuseSupersededKey(deps);
  const receivedAtUs = deps.micros();
  const preparation = prepareEvent(envelope, prepareContext(deps, scope));
  if (!preparation.ok) return { eventId: preparation.eventId, status: 'rejected', error: preparation.refusal };
  return coalescer.store(scope, { prepared: preparation.prepared, receivedAtUs });
}
