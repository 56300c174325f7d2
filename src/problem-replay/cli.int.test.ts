import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTestCli } from '../../test/helpers/cli.ts';
import { journeyNumberOf, keyring, openReplayBed, type ReplayBed } from './test-kit.ts';

let bed: ReplayBed;
beforeAll(async () => {
  bed = await openReplayBed(6);
});
afterAll(async () => {
  await bed.close();
});

async function cli(...argv: string[]) {
  const { code, out, err } = await runTestCli(argv, { pool: bed.db.pool, keyring, config: { replayAllowedHosts: ['127.0.0.1'] } });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('jtrace problem:replay', () => {
  it('--wait runs the batch and prints the verdict counts; replay-status and replay-cancel read it', async () => {
    bed.target.requests.length = 0;
    const run = await cli('problem:replay', bed.problemId, '--destination', bed.destinationId, '--journeys', '6', '--rate', '50', '--concurrency', '3', '--wait');
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const last = run.out.split('\n').at(-1)!;
    expect(last).toMatch(/^batch [0-9a-f-]{36}  done  6\/6  kept 2  still lost 2  failed 2  to fixed contacts$/);
    expect(bed.target.requests.map((r) => journeyNumberOf(r.body)).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const batchId = /^batch ([0-9a-f-]{36})/.exec(last)![1]!;

    const status = await cli('problem:replay-status', batchId, '--json');
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.out) as { batch: { status: string; counts: unknown; actor: unknown }; results: Array<{ journeyId: string; verdict: string }> };
    expect(parsed.batch).toMatchObject({ status: 'done', counts: { kept: 2, stillLost: 2, failed: 2 }, actor: { type: 'cli', id: null, name: null } });
    expect(parsed.results.find((r) => r.journeyId === 'jrn-4')!.verdict).toBe('still_lost');

    const cancel = await cli('problem:replay-cancel', batchId);
    expect(cancel).toMatchObject({ code: 0, err: '' });
    expect(cancel.out).toContain('  done  6/6');
  });

  it('refuses bad limits as usage errors and unknown ids with exit 1', async () => {
    expect((await cli('problem:replay', bed.problemId, '--destination', bed.destinationId, '--journeys', '1001')).code).toBe(2);
    expect((await cli('problem:replay', bed.problemId, '--destination', bed.destinationId, '--concurrency', '9')).code).toBe(2);
    expect((await cli('problem:replay', bed.problemId)).code).toBe(2);
    const unknown = await cli('problem:replay', '00000000-0000-4000-8000-000000000000', '--destination', bed.destinationId);
    expect(unknown.code).toBe(1);
    expect((await cli('problem:replay-status', '00000000-0000-4000-8000-000000000000')).code).toBe(1);
    const noDestination = await cli('problem:replay', bed.problemId, '--destination', '00000000-0000-4000-8000-000000000000');
    expect(noDestination).toMatchObject({ code: 1, err: 'not_found: The replay destination was not found.' });
  });
});
