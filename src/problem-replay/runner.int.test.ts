import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/helpers/app.ts';
import { admin, json } from '../replay/test-kit.ts';
import { journeyNumberOf, keyring, openReplayBed, readBatch, startBatch, startRunner, waitFor, type ReplayBed } from './test-kit.ts';

let bed: ReplayBed;
beforeAll(async () => {
  bed = await openReplayBed(12);
});
afterAll(async () => {
  await bed.close();
});

/** A receiver that answers after `delayMs`, keeping the phone for every journey; arrival times recorded. */
function slowReceiver(delayMs: number): number[] {
  const arrivals: number[] = [];
  bed.target.requests.length = 0;
  bed.target.handle((request, response) => {
    arrivals.push(Date.now());
    setTimeout(() => json(response, 200, JSON.parse(request.body)), delayMs);
  });
  return arrivals;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a worker restart in the middle of a batch', () => {
  it('is resumed by a new worker on the same database: every journey replayed once', async () => {
    slowReceiver(150);
    const first = startRunner(bed);
    const started = await startBatch(bed, { destinationId: bed.destinationId, journeys: 12, ratePerSecond: 10, concurrency: 2 });
    expect(started.statusCode, started.body).toBe(202);
    const id = started.json().data.id as string;
    await waitFor(bed, id, (b) => b.completed >= 3);
    // The stop lets the replays in flight finish and releases the batch.
    await first.stop();
    await bed.app.close();
    const halfway = await readBatch({ ...bed, app: (bed.app = (await buildTestApp(bed.db.pool, { keyring, config: { replayAllowedHosts: ['127.0.0.1'] } })).app) }, id);
    expect(halfway.status).toBe('running');
    expect(halfway.completed).toBeGreaterThanOrEqual(3);
    expect(halfway.completed).toBeLessThan(12);
    expect(bed.target.requests).toHaveLength(halfway.completed);

    const second = startRunner(bed);
    try {
      const done = await waitFor(bed, id);
      expect(done).toMatchObject({ status: 'done', completed: 12, counts: { kept: 12, stillLost: 0, failed: 0 } });
      const numbers = bed.target.requests.map((r) => journeyNumberOf(r.body));
      expect(numbers).toHaveLength(12);
      expect(new Set(numbers).size).toBe(12);
    } finally {
      await second.stop();
    }
  });

  it('two workers at once never replay a journey twice', async () => {
    slowReceiver(20);
    const workers = [startRunner(bed, 20), startRunner(bed, 20)];
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await startBatch(bed, { destinationId: bed.destinationId, journeys: 4, ratePerSecond: 50, concurrency: 2 })).json().data.id);
      for (const id of ids) expect((await waitFor(bed, id)).completed).toBe(4);
      // Each batch replays jrn-8..jrn-11: three batches, each journey three times, never more.
      const numbers = bed.target.requests.map((r) => journeyNumberOf(r.body)).sort((a, b) => a! - b!);
      expect(numbers).toEqual([8, 8, 8, 9, 9, 9, 10, 10, 10, 11, 11, 11]);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });
});

describe('cancel', () => {
  it('stops new replays; those in flight finish; the batch reads cancelled', async () => {
    slowReceiver(300);
    const runner = startRunner(bed);
    try {
      const id = (await startBatch(bed, { destinationId: bed.destinationId, journeys: 12, ratePerSecond: 4, concurrency: 1 })).json().data.id as string;
      await waitFor(bed, id, (b) => b.completed >= 1);
      const cancel = await bed.app.inject({ method: 'POST', url: `/v1/projects/${bed.project.projectId}/problem-replays/${id}/cancel`, headers: admin(bed.project.projectId) });
      expect(cancel.statusCode).toBe(200);
      expect(cancel.json().data.status).toBe('cancelled');
      expect(cancel.json().data.finishedAt).not.toBeNull();
      // A replay in flight at the cancel finishes within its delay; then nothing more arrives.
      await sleep(1_000);
      const sent = bed.target.requests.length;
      await sleep(1_500);
      expect(bed.target.requests.length).toBe(sent);
      expect(sent).toBeLessThan(12);
      const batch = await readBatch(bed, id);
      expect(batch).toMatchObject({ status: 'cancelled', completed: sent });
      const audit = await bed.db.pool.query(`SELECT 1 FROM audit_log WHERE action = 'problem_replay.cancelled' AND details->>'batchId' = $1`, [id]);
      expect(audit.rowCount).toBe(1);
    } finally {
      await runner.stop();
    }
  });
});

describe('rate', () => {
  it('never starts more than ratePerSecond replays in a second, even with spare concurrency', async () => {
    const arrivals = slowReceiver(0);
    const runner = startRunner(bed);
    try {
      const id = (await startBatch(bed, { destinationId: bed.destinationId, journeys: 12, ratePerSecond: 4, concurrency: 8 })).json().data.id as string;
      await waitFor(bed, id);
      expect(arrivals).toHaveLength(12);
      // Four a second: any one-second window holds at most 4 (one more allowed for timer jitter).
      const busiest = Math.max(...arrivals.map((t) => arrivals.filter((u) => u >= t && u < t + 1_000).length));
      expect(busiest).toBeLessThanOrEqual(5);
      // Twelve at four a second span close to 2.75 s; a burst would be over in milliseconds.
      expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(2_000);
    } finally {
      await runner.stop();
    }
  });
});
