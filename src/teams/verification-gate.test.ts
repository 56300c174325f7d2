import { describe, expect, it } from 'vitest';
import { VerificationGate, type Leave } from './verification-gate.ts';

describe('VerificationGate', () => {
  it('runs at most `concurrency` at once, queues at most `maxWaiting`, refuses the rest at once', async () => {
    const gate = new VerificationGate({ concurrency: 2, maxWaiting: 3 });
    const entered = await Promise.all([gate.enter(), gate.enter()]);
    expect(entered.every((leave) => typeof leave === 'function')).toBe(true);
    const waiting = [gate.enter(), gate.enter(), gate.enter()];
    expect(await gate.enter()).toBeNull();
    expect([gate.running, gate.waiting]).toEqual([2, 3]);

    // A slot passes to the oldest waiter; leaving twice frees one slot only.
    entered[0]!();
    entered[0]!();
    const firstWaiter = (await waiting[0]) as Leave;
    expect(typeof firstWaiter).toBe('function');
    expect([gate.running, gate.waiting]).toEqual([2, 2]);

    for (const leave of [entered[1]!, firstWaiter]) leave();
    const rest = (await Promise.all(waiting.slice(1))) as Leave[];
    expect([gate.running, gate.waiting]).toEqual([2, 0]);
    for (const leave of rest) leave();
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });

  it('with no room to wait, refuses as soon as every slot is taken', async () => {
    const gate = new VerificationGate({ concurrency: 1, maxWaiting: 0 });
    const holder = (await gate.enter())!;
    expect(await gate.enter()).toBeNull();
    holder();
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
    expect(typeof (await gate.enter())).toBe('function');
  });

  it('refuses a concurrency below one and a fractional queue', () => {
    expect(() => new VerificationGate({ concurrency: 0, maxWaiting: 1 })).toThrow(RangeError);
    expect(() => new VerificationGate({ concurrency: 1, maxWaiting: 1.5 })).toThrow(RangeError);
  });
});
