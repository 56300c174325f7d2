import { describe, expect, it } from 'vitest';
import { percentile, suggestExpectation } from './suggest.ts';

const journey = (id: string, steps: Array<[string, number]>) => steps.map(([name, s]) => ({ journey_id: id, name, ts_ms: s * 1000 }));

describe('suggestExpectation', () => {
  it('proposes the common sequence, optional steps, the final step and 99th percentiles', () => {
    const rows = [
      ...journey('a', [['receive', 0], ['normalize', 2], ['persist', 5], ['deliver', 9]]),
      ...journey('b', [['receive', 0], ['normalize', 1], ['deliver', 3]]),
      ...journey('c', [['receive', 0], ['normalize', 3], ['persist', 4], ['deliver', 20]]),
    ];
    expect(suggestExpectation(rows)).toEqual({
      journeys: 3,
      steps: [
        { name: 'receive', optional: false },
        { name: 'normalize', optional: false },
        { name: 'persist', optional: true },
        { name: 'deliver', optional: false },
      ],
      finalStep: 'deliver',
      maxGapSeconds: 16,
      deadlineSeconds: 20,
    });
  });

  it('proposes nothing from no journeys', () => {
    expect(suggestExpectation([])).toEqual({ journeys: 0, steps: [], finalStep: null, maxGapSeconds: null, deadlineSeconds: null });
  });

  it('takes the nearest rank', () => {
    expect(percentile([5, 1, 3], 0.5)).toBe(3);
    expect(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 0.99)).toBe(99);
  });
});
