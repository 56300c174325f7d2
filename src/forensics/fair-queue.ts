// Admission and order of forensic work (docs/forensics.md, "Fairness and limits"). A walk over a
// long journey takes a slot for hundreds of milliseconds: run first come first served, one
// caller sending twenty of them held every other caller (of every project) for seconds. Here
// each caller runs one walk at a time, free slots go round the projects then round their
// callers, waiting is bounded per caller, per project and in all (beyond: 429 with
// Retry-After), and a request whose client went away leaves the queue or stops its walk.
// The state is per process: two instances each apply these limits to the work they receive.

import { AppError } from '../http/errors.ts';
import { WorkCancelled } from './cooperative.ts';

export interface WorkLimits {
  /** Walks running at once in the process. */
  running: number;
  /** Walks running at once for one caller: one never holds every slot. */
  runningPerCaller: number;
  /** Requests one caller may have admitted (running or waiting); more are refused. */
  admittedPerCaller: number;
  /** Requests of one project (all its callers) admitted at once. */
  admittedPerProject: number;
  /** Requests waiting in the whole process. */
  waiting: number;
  /** Retry-After of a refusal, in seconds. */
  retryAfterSeconds: number;
}

export const DEFAULT_WORK_LIMITS: WorkLimits = {
  running: 2,
  runningPerCaller: 1,
  admittedPerCaller: 4,
  admittedPerProject: 16,
  waiting: 64,
  retryAfterSeconds: 2,
};

/** Who asks: the project read and the credential that asked (an API key, the admin token, a session). */
export interface Caller {
  projectId: string;
  callerId: string;
}

interface Waiter {
  caller: Caller;
  start: () => void;
  cancel: () => void;
}

export type WorkQueue = <T>(caller: Caller, signal: AbortSignal, task: () => Promise<T>) => Promise<T>;

export function busy(retryAfterSeconds: number, whose: string): AppError {
  return new AppError('too_many_attempts', `Too many forensic reads are waiting for ${whose}; retry shortly.`, undefined, {
    'retry-after': String(retryAfterSeconds),
  });
}

export function createWorkQueue(limits: WorkLimits = DEFAULT_WORK_LIMITS): WorkQueue {
  let running = 0;
  let waitingCount = 0;
  const runningByCaller = new Map<string, number>();
  const admittedByCaller = new Map<string, number>();
  const admittedByProject = new Map<string, number>();
  // Projects in turn order, each with its callers in turn order: served ones move to the back.
  const queues = new Map<string, Map<string, Waiter[]>>();

  const callerKey = (caller: Caller) => `${caller.projectId}\u0000${caller.callerId}`;
  const add = (map: Map<string, number>, key: string, by: number) => {
    const next = (map.get(key) ?? 0) + by;
    if (next === 0) map.delete(key);
    else map.set(key, next);
  };

  /** Starts waiters while slots are free, each time the first project and caller in turn that may run. */
  const dispatch = () => {
    while (running < limits.running) {
      const next = nextWaiter();
      if (next === null) return;
      next.start();
    }
  };

  const nextWaiter = (): Waiter | null => {
    for (const [projectId, callers] of queues) {
      for (const [key, list] of callers) {
        if ((runningByCaller.get(key) ?? 0) >= limits.runningPerCaller) continue;
        const waiter = list.shift()!;
        callers.delete(key);
        if (list.length > 0) callers.set(key, list);
        queues.delete(projectId);
        if (callers.size > 0) queues.set(projectId, callers);
        return waiter;
      }
    }
    return null;
  };

  const remove = (waiter: Waiter) => {
    const key = callerKey(waiter.caller);
    const callers = queues.get(waiter.caller.projectId);
    const list = callers?.get(key);
    if (list === undefined || callers === undefined) return;
    const index = list.indexOf(waiter);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) callers.delete(key);
    if (callers.size === 0) queues.delete(waiter.caller.projectId);
  };

  return async <T>(caller: Caller, signal: AbortSignal, task: () => Promise<T>): Promise<T> => {
    if (signal.aborted) throw new WorkCancelled();
    const key = callerKey(caller);
    if ((admittedByCaller.get(key) ?? 0) >= limits.admittedPerCaller) throw busy(limits.retryAfterSeconds, 'this credential');
    if ((admittedByProject.get(caller.projectId) ?? 0) >= limits.admittedPerProject) throw busy(limits.retryAfterSeconds, 'this project');
    // A free slot with waiters left means none of them may run: this caller need not queue behind them.
    const mayStart = running < limits.running && (runningByCaller.get(key) ?? 0) < limits.runningPerCaller;
    if (!mayStart && waitingCount >= limits.waiting) throw busy(limits.retryAfterSeconds, 'the server');
    add(admittedByCaller, key, 1);
    add(admittedByProject, caller.projectId, 1);
    try {
      if (!mayStart) await wait(caller, signal);
      else start(key);
      try {
        if (signal.aborted) throw new WorkCancelled();
        return await task();
      } finally {
        running--;
        add(runningByCaller, key, -1);
        dispatch();
      }
    } finally {
      add(admittedByCaller, key, -1);
      add(admittedByProject, caller.projectId, -1);
    }
  };

  function start(key: string) {
    running++;
    add(runningByCaller, key, 1);
  }

  function wait(caller: Caller, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const key = callerKey(caller);
      const onAbort = () => waiter.cancel();
      const waiter: Waiter = {
        caller,
        start: () => {
          signal.removeEventListener('abort', onAbort);
          waitingCount--;
          start(key);
          resolve();
        },
        cancel: () => {
          signal.removeEventListener('abort', onAbort);
          waitingCount--;
          remove(waiter);
          reject(new WorkCancelled());
        },
      };
      waitingCount++;
      const callers = queues.get(caller.projectId) ?? new Map<string, Waiter[]>();
      queues.set(caller.projectId, callers);
      const list = callers.get(key) ?? [];
      callers.set(key, list);
      list.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
      dispatch();
    });
  }
}
