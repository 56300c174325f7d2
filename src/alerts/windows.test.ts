import { describe, expect, it } from 'vitest';
import { walkWindows, type WalkInput, type WindowCount } from './windows.ts';

const M = 60_000;
const counts = (byMinute: Record<number, number>) =>
  new Map<number, WindowCount>(Object.entries(byMinute).map(([minute, count]) => [Number(minute) * M, { count, journeys: [`jrn-${minute}`] }]));
const walk = (input: Partial<WalkInput> & { counts: Map<number, WindowCount> }) =>
  walkWindows({ from: 0, current: 9 * M, sizeMs: M, threshold: 2, state: 'ok', settledEnd: 9 * M, ...input });
const lines = (result: ReturnType<typeof walkWindows>) => result.notifications.map((n) => `${n.notification} ${n.windowStart / M} ${n.count} ${n.windowComplete}`);

describe("walking a rule's windows", () => {
  it('fires for each window at the threshold and resolves after two windows under it', () => {
    const result = walk({ counts: counts({ 1: 2, 2: 1, 3: 5, 6: 1 }) });
    expect(lines(result)).toEqual(['firing 1 2 true', 'firing 3 5 true', 'resolved 5 0 true']);
    expect(result).toMatchObject({ evaluatedUntil: 9 * M, evaluatedState: 'ok', state: 'ok' });
  });

  it('gives the same notifications walked in one catch-up or pass by pass', () => {
    const all = counts({ 0: 3, 4: 2, 5: 2 });
    const once = lines(walk({ counts: all }));
    const seen = new Set<string>();
    let cursor = 0;
    let state: 'ok' | 'firing' = 'ok';
    for (let minute = 0; minute <= 9; minute++) {
      // Each pass at 10 s into its minute; a window settles a minute after it ends.
      const at = minute * M + 10_000;
      const result = walk({ from: cursor, current: minute * M, state, counts: all, settledEnd: at - M });
      // What a pass queues for a window that is not final is counted again later: keep the latest.
      for (const line of lines(result)) seen.add(line.replace(/ (true|false)$/, ''));
      cursor = result.evaluatedUntil;
      state = result.evaluatedState;
    }
    expect([...seen]).toEqual(once.map((line) => line.replace(/ (true|false)$/, '')));
  });

  it('keeps the cursor before windows that have not settled, and starts from the state there', () => {
    const result = walk({ from: 7 * M, state: 'firing', counts: counts({ 6: 4, 8: 1 }), settledEnd: 8 * M + 30_000 });
    expect(lines(result)).toEqual(['resolved 8 1 false']);
    expect(result).toMatchObject({ evaluatedUntil: 8 * M, evaluatedState: 'firing', state: 'ok' });
  });
});
