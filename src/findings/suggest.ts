// An expectation proposed from history: the steps the last completed journeys of an entity type
// went through (in their usual order; a step some journeys skipped is optional), their most
// common last step, and the 99th percentile of the gaps between steps and of whole durations.

import type { CompletedStep } from './summary-sql.ts';

export interface Suggestion {
  journeys: number;
  steps: Array<{ name: string; optional: boolean }>;
  finalStep: string | null;
  maxGapSeconds: number | null;
  deadlineSeconds: number | null;
}

/** The smallest value at or above the given share of the sorted values (nearest rank). */
export function percentile(values: readonly number[], share: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!;
}

const seconds = (ms: number | null) => (ms === null ? null : Math.max(1, Math.ceil(ms / 1000)));

export function suggestExpectation(rows: readonly CompletedStep[]): Suggestion {
  const journeys = new Map<string, CompletedStep[]>();
  for (const row of rows) {
    const steps = journeys.get(row.journey_id) ?? [];
    steps.push(row);
    journeys.set(row.journey_id, steps);
  }
  const positions = new Map<string, number[]>();
  const lastSteps = new Map<string, number>();
  const gaps: number[] = [];
  const durations: number[] = [];
  for (const steps of journeys.values()) {
    const seen = new Set<string>();
    steps.forEach((step, index) => {
      if (index > 0) gaps.push(step.ts_ms - steps[index - 1]!.ts_ms);
      if (seen.has(step.name)) return;
      seen.add(step.name);
      // Where in the journey the step first comes, as a share of its length.
      const at = positions.get(step.name) ?? [];
      at.push(steps.length === 1 ? 0 : index / (steps.length - 1));
      positions.set(step.name, at);
    });
    const last = steps.at(-1)!.name;
    lastSteps.set(last, (lastSteps.get(last) ?? 0) + 1);
    durations.push(steps.at(-1)!.ts_ms - steps[0]!.ts_ms);
  }
  const steps = [...positions.entries()]
    .map(([name, at]) => ({ name, optional: at.length < journeys.size, order: percentile(at, 0.5)! }))
    .sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, optional }) => ({ name, optional }));
  const finalStep = [...lastSteps.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null;
  return { journeys: journeys.size, steps, finalStep, maxGapSeconds: seconds(percentile(gaps, 0.99)), deadlineSeconds: seconds(percentile(durations, 0.99)) };
}
