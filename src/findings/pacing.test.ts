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
  /** A pacer whose sleeps are recorded, not slept; one sample per look unless told. */
  function pacerWith(samples: Array<boolean | Error>, share = 0.25, lookSamples = 1) {
    const decisions: PaceDecision[] = [];
    const slept: number[] = [];
    let sampled = 0;
    const pacer = createPacer({
      busyNow: async () => {
        sampled++;
        const next = samples.shift() ?? false;
        if (next instanceof Error) throw next;
        return next;
      },
      busyShare: share,
      holdLooks: 3,
      lookMs: 20,
      lookSamples,
      sleep: async (ms) => {
        slept.push(ms);
      },
      onDecision: (decision) => decisions.push(decision),
    });
    return { batch: (ms: number) => pacer.pace(ms), decisions, slept, sampled: () => sampled };
  }

  it('keeps the busy verdict until three looks in a row found the database quiet, then runs at full speed', async () => {
    const { batch, decisions, slept } = pacerWith([true, false, false, true, false, false, false]);
    await batch(100); // idle so far: a look of 20 ms sees other work, then the rest of the pause (300)
    await batch(100); // quiet once: still busy
    await batch(500); // quiet twice: still busy
    await batch(100); // busy again: the count starts over
    await batch(100);
    await batch(100);
    await batch(100); // the third quiet look in a row: idle from the next batch on
    await batch(100); // idle: only the look
    expect(decisions.map((d) => [d.busy, d.pauseMs, d.waitedMs])).toEqual([
      [true, 300, 300], [true, 300, 300], [true, 1_500, 1_500], [true, 300, 300],
      [true, 300, 300], [true, 300, 300], [true, 300, 300], [false, 0, 20],
    ]);
    expect(slept.slice(0, 3)).toEqual([20, 280, 300]);
  });

  it('works its share while the database stays busy, however long: never starved', async () => {
    const { batch, decisions } = pacerWith(Array(50).fill(true), 0.2);
    for (let i = 0; i < 50; i++) await batch(50 + (i % 7) * 10);
    const work = decisions.reduce((n, d) => n + d.batchMs, 0);
    const paused = decisions.reduce((n, d) => n + d.waitedMs, 0);
    expect(decisions.every((d) => d.busy)).toBe(true);
    expect(work / (work + paused)).toBeCloseTo(0.2, 10);
  });

  it('spreads its samples over the wait and stops at the first that sees work', async () => {
    const quiet = pacerWith([false, false, false, false], 0.25, 4);
    expect(await quiet.batch(100)).toMatchObject({ busy: false, waitedMs: 20 });
    expect(quiet.slept).toEqual([5, 5, 5, 5]);
    expect(quiet.sampled()).toBe(4);
    // Work seen at the second sample, 10 ms in: the rest of the pause the rule asks for.
    const busy = pacerWith([false, true], 0.25, 4);
    expect(await busy.batch(100)).toMatchObject({ busy: true, pauseMs: 300, waitedMs: 300 });
    expect(busy.slept).toEqual([5, 5, 290]);
    expect(busy.sampled()).toBe(2);
    // While busy, the samples are spread over the pause itself.
    const paced = pacerWith([true, false, false, false, false], 0.25, 4);
    await paced.batch(100);
    await paced.batch(100);
    expect(paced.slept).toEqual([5, 295, 75, 75, 75, 75]);
  });

  it('takes a failed sample for no news: the last verdict stands', async () => {
    const { batch, decisions } = pacerWith([new Error('connection lost'), true, new Error('connection lost'), new Error('connection lost'), new Error('connection lost'), false]);
    for (let i = 0; i < 6; i++) await batch(100);
    // Failed looks neither start the pacing nor count towards the quiet looks that end it.
    expect(decisions.map((d) => d.busy)).toEqual([false, true, true, true, true, true]);
  });
});
