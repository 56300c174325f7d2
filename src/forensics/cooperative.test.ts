import { describe, expect, it } from 'vitest';
import type { JourneyPayloads } from '../query/journey-payloads.ts';
import { compareJourneys } from './compare-journeys.ts';
import { WorkCancelled, workSlicer } from './cooperative.ts';
import { parseFieldPath } from './field-path.ts';
import { followField } from './follow-field.ts';
import { listJourneyChanges } from './journey-changes.ts';
import { payloadEvent as step } from './test-journeys.ts';

const journey: JourneyPayloads = {
  events: Array.from({ length: 20 }, (_, i) => step(i, { phone: '1', n: i }, i === 7 ? { n: i } : { phone: '1', n: i + 1 })),
  truncated: false,
} as JourneyPayloads;

/** True when a macrotask queued before `work` ran before `work` settled: the walk let other work in. */
async function letOthersIn(work: () => Promise<unknown>): Promise<boolean> {
  let ran = false;
  setImmediate(() => {
    ran = true;
  });
  await work();
  return ran;
}

describe('forensic walks hand the event loop back', () => {
  const segments = parseFieldPath('phone');
  if (typeof segments === 'string') throw new Error(segments);

  it('each walk yields once its slice is used up, and gives the same answer as one that never yields', async () => {
    expect(await letOthersIn(() => listJourneyChanges(journey, workSlicer(0)))).toBe(true);
    expect(await letOthersIn(() => followField(journey, segments, workSlicer(0)))).toBe(true);
    expect(await letOthersIn(() => compareJourneys(journey, journey, workSlicer(0)))).toBe(true);
    expect(await listJourneyChanges(journey, workSlicer(0))).toEqual(await listJourneyChanges(journey, workSlicer(Infinity)));
    expect(await followField(journey, segments, workSlicer(0))).toEqual(await followField(journey, segments, workSlicer(Infinity)));
    expect(await compareJourneys(journey, journey, workSlicer(0))).toEqual(await compareJourneys(journey, journey, workSlicer(Infinity)));
  });

  it('a walk stops at its next pause once its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(listJourneyChanges(journey, workSlicer(Infinity, controller.signal))).rejects.toBeInstanceOf(WorkCancelled);
    await expect(followField(journey, segments, workSlicer(Infinity, controller.signal))).rejects.toBeInstanceOf(WorkCancelled);
    await expect(compareJourneys(journey, journey, workSlicer(Infinity, controller.signal))).rejects.toBeInstanceOf(WorkCancelled);
  });

  it('a walk within its slice does not yield', async () => {
    expect(await letOthersIn(() => listJourneyChanges(journey, workSlicer(Infinity)))).toBe(false);
  });
});
