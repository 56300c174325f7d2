import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.ts';
import { WorkCancelled } from './cooperative.ts';
import { DEFAULT_WORK_LIMITS, createWorkQueue, type Caller, type WorkLimits } from './fair-queue.ts';

const never = new AbortController().signal;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A task that runs until released, recording when it started. */
function held(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { run: async () => (started.push(name), await done, name), release: () => release() };
}

const limits = (overrides: Partial<WorkLimits> = {}): WorkLimits => ({ ...DEFAULT_WORK_LIMITS, ...overrides });
const who = (projectId: string, callerId: string): Caller => ({ projectId, callerId });

describe('the forensic work queue', () => {
  it('runs one walk per caller at a time: a second caller starts at once beside a busy one', async () => {
    const queue = createWorkQueue(limits());
    const started: string[] = [];
    const tasks = [1, 2, 3].map((i) => held(started, `a${i}`));
    const running = tasks.map((task) => queue(who('p', 'a'), never, task.run));
    const admin = held(started, 'admin');
    const adminDone = queue(who('p', 'admin'), never, admin.run);
    await tick();
    expect(started).toEqual(['a1', 'admin']);
    admin.release();
    expect(await adminDone).toBe('admin');
    for (const task of tasks) task.release();
    expect(await Promise.all(running)).toEqual(['a1', 'a2', 'a3']);
  });

  it('hands free slots round the projects, then round their callers', async () => {
    const queue = createWorkQueue(limits({ running: 1 }));
    const started: string[] = [];
    const first = held(started, 'first');
    const all: Array<Promise<string>> = [queue(who('p', 'x'), never, first.run)];
    const order = [who('p', 'a'), who('p', 'a'), who('p', 'b'), who('q', 'c'), who('q', 'c')];
    const tasks = order.map((caller, i) => held(started, `${caller.projectId}${caller.callerId}${i}`));
    order.forEach((caller, i) => all.push(queue(caller, never, tasks[i]!.run)));
    first.release();
    for (const task of tasks) {
      await tick();
      await tick();
      task.release();
    }
    await Promise.all(all);
    expect(started).toEqual(['first', 'pa0', 'qc3', 'pb2', 'qc4', 'pa1']);
  });

  it('refuses past the limits per caller, per project and in all with 429 too_many_attempts and Retry-After', async () => {
    const queue = createWorkQueue(limits({ admittedPerCaller: 2, admittedPerProject: 3, waiting: 4 }));
    const started: string[] = [];
    const tasks = Array.from({ length: 8 }, (_, i) => held(started, String(i)));
    const refusal = async (caller: Caller, task: { run: () => Promise<string> }) => {
      const error = await queue(caller, never, task.run).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(429);
      expect((error as AppError).code).toBe('too_many_attempts');
      expect((error as AppError).headers?.['retry-after']).toBe(String(DEFAULT_WORK_LIMITS.retryAfterSeconds));
      return (error as AppError).message;
    };
    const admitted = [queue(who('p', 'a'), never, tasks[0]!.run), queue(who('p', 'a'), never, tasks[1]!.run)];
    expect(await refusal(who('p', 'a'), tasks[2]!)).toMatch(/credential/);
    admitted.push(queue(who('p', 'b'), never, tasks[3]!.run));
    expect(await refusal(who('p', 'c'), tasks[4]!)).toMatch(/project/);
    // Two running (a and b), one waiting (a); three more of other projects fill the waiting room.
    for (const i of [5, 6, 7]) admitted.push(queue(who(`q${i}`, 'a'), never, tasks[i]!.run));
    expect(await refusal(who('r', 'a'), tasks[4]!)).toMatch(/server/);
    for (const task of tasks) task.release();
    await Promise.all(admitted);
    // Everything admitted ran; the room is free again.
    expect(await queue(who('p', 'a'), never, async () => 'again')).toBe('again');
  });

  it('a waiting request whose client left leaves the queue and never runs; a running one frees its slot', async () => {
    const queue = createWorkQueue(limits({ running: 1 }));
    const started: string[] = [];
    const first = held(started, 'first');
    const running = queue(who('p', 'a'), never, first.run);
    const leaving = new AbortController();
    const waiting = queue(who('p', 'b'), leaving.signal, held(started, 'gone').run);
    leaving.abort();
    await expect(waiting).rejects.toBeInstanceOf(WorkCancelled);
    first.release();
    await running;
    expect(started).toEqual(['first']);
    const aborted = new AbortController();
    aborted.abort();
    await expect(queue(who('p', 'c'), aborted.signal, async () => 'x')).rejects.toBeInstanceOf(WorkCancelled);
    expect(await queue(who('p', 'b'), never, async () => 'free')).toBe('free');
  });

  it('frees the slot of a task that throws', async () => {
    const queue = createWorkQueue(limits({ running: 1 }));
    await expect(queue(who('p', 'a'), never, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue(who('p', 'a'), never, async () => 'next')).toBe('next');
  });
});
