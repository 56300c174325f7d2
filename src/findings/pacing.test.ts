import { describe, expect, it } from 'vitest';
import { createPacer, pauseAfter, type PaceDecision } from './pacing.ts';

describe('the pacing rule', () => {
  it('pauses only while busy, so that the batch is the share of the time to the next', () => {
    expect(pauseAfter(100, false, 0.25)).toBe(0);
    expect(pauseAfter(100, true, 0.25)).toBe(300);
    expect(100 / (100 + pauseAfter(100, true, 0.25))).toBe(0.25);
    expect(pauseAfter(40, true, 0.5)).toBe(40);
    // A share of 1 is never paced; a batch that took no time needs no pause.
    expect(pauseAfter(100, true, 1)).toBe(0);
    expect(pauseAfter(0, true, 0.25)).toBe(0);
  });

  it('never pauses longer than the cap: a long batch on a busy database still goes on within it', () => {
    expect(pauseAfter(5_000, true, 0.25, 2_000)).toBe(2_000);
    expect(pauseAfter(5_000, true, 0.05)).toBe(2_000);
  });
});

describe('a pacer', () => {
  /** A pacer whose sleeps are recorded, not slept. */
  function pacerWith(samples: Array<boolean | Error>, share = 0.25) {
    const decisions: PaceDecision[] = [];
    const slept: number[] = [];
    const windows: number[] = [];
    const pacer = createPacer({
      busyNow: async (windowMs) => {
        windows.push(windowMs);
        const next = samples.shift() ?? false;
        if (next instanceof Error) throw next;
        return next;
      },
      busyShare: share,
      holdMs: 1_000,
      lookMs: 20,
      sleep: async (ms) => {
        slept.push(ms);
      },
      onDecision: (decision) => decisions.push(decision),
    });
    const batch = async (ms: number) => {
      return pacer.pace(ms);
    };
    return { batch, decisions, slept, windows };
  }

  it('keeps the busy verdict until it has watched the database quiet for the hold, then runs at full speed', async () => {
    const { batch, decisions, slept } = pacerWith([true, false, false, false]);
    await batch(100); // idle so far: a look of 20 ms sees other work, then the rest of the pause (300)
    await batch(100); // quiet for the 300 ms it waited: still busy
    await batch(500); // quiet for 300 ms watched (the batch's own time does not count): still busy
    await batch(100); // 1,800 ms of quiet watched: idle, only the look
    expect(decisions.map((d) => [d.busy, d.pauseMs, d.waitedMs])).toEqual([[true, 300, 300], [true, 300, 300], [true, 1_500, 1_500], [false, 0, 20]]);
    expect(slept).toEqual([20, 280, 300, 1_500, 20]);
  });

  it('works its share while the database stays busy, however long: never starved', async () => {
    const { batch, decisions } = pacerWith(Array(50).fill(true), 0.2);
    for (let i = 0; i < 50; i++) await batch(50 + (i % 7) * 10);
    const work = decisions.reduce((n, d) => n + d.batchMs, 0);
    const paused = decisions.reduce((n, d) => n + d.waitedMs, 0);
    expect(decisions.every((d) => d.busy)).toBe(true);
    expect(work / (work + paused)).toBeCloseTo(0.2, 10);
  });

  it('looks at the database over the time it waited: what ran while it did not work', async () => {
    const { batch, windows } = pacerWith([false, true, false]);
    await batch(100);
    await batch(100);
    await batch(100);
    expect(windows).toEqual([20, 20, 300]);
  });

  it('takes a failed sample for no news: the last verdict stands', async () => {
    const { batch, decisions } = pacerWith([new Error('connection lost'), true, new Error('connection lost')]);
    await batch(100);
    await batch(100);
    await batch(100);
    expect(decisions.map((d) => d.busy)).toEqual([false, true, true]);
  });
});
