// Verifying a fix by replay from the command line (docs/problems.md): start a batch, read its
// progress and results, cancel it. Problems and batches are named by id alone: the id says the project.

import {
  cancelProblemReplay,
  getProblemReplay,
  listProblemReplayResults,
  parseBatchInput,
  projectOfBatch,
  projectOfProblem,
  startProblemReplay,
  type BatchView,
} from '../../problem-replay/batches.ts';
import { MAX_EXPORT_ROWS } from '../../problem-replay/limits.ts';
import { startProblemReplayRunner } from '../../problem-replay/runner.ts';
import { readBuildInfo } from '../../health/build-info.ts';
import { AppError } from '../../http/errors.ts';
import { UsageError, single } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT_FAILED, EXIT_OK, type CliIo } from '../context.ts';

/** Milliseconds between progress lines of --wait. */
const WAIT_POLL_MS = 500;

function numberOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value)) throw new UsageError(`${name} must be a number`);
  return Number(value);
}

function summary(batch: BatchView): string {
  const { kept, stillLost, failed } = batch.counts;
  return `batch ${batch.id}  ${batch.status}  ${batch.completed}/${batch.requested}  kept ${kept}  still lost ${stillLost}  failed ${failed}  to ${batch.destinationName}`;
}

function refused(io: CliIo, error: unknown): number {
  if (error instanceof AppError && error.status < 500) {
    io.err(`${error.code}: ${error.message}`);
    return EXIT_FAILED;
  }
  throw error;
}

export const problemReplay: Command = {
  name: 'problem:replay',
  usage: 'problem:replay <problemId> --destination <id> [--journeys N] [--rate R] [--concurrency C] [--wait]',
  summary: "replay the recorded step input of up to N (default 50) of a problem's journeys to a destination and count how many now keep the field; --wait runs it here and waits",
  spec: {
    positionals: ['problemId'],
    options: { '--destination': { value: true }, '--journeys': { value: true }, '--rate': { value: true }, '--concurrency': { value: true }, '--wait': {} },
  },
  async run(ctx, args) {
    const destinationId = single(args, '--destination');
    if (destinationId === undefined) throw new UsageError('--destination is required');
    const body = {
      destinationId,
      journeys: numberOption(single(args, '--journeys'), '--journeys'),
      ratePerSecond: numberOption(single(args, '--rate'), '--rate'),
      concurrency: numberOption(single(args, '--concurrency'), '--concurrency'),
    };
    let input;
    try {
      input = parseBatchInput(JSON.parse(JSON.stringify(body)));
    } catch (error) {
      if (error instanceof AppError) throw new UsageError(error.message);
      throw error;
    }
    return ctx.withServices(async ({ pool, keyring, config }) => {
      const problemId = args.positionals.problemId!;
      const projectId = await projectOfProblem(pool, problemId);
      if (projectId === null) {
        ctx.io.err(`no problem ${JSON.stringify(problemId.slice(0, 64))}`);
        return EXIT_FAILED;
      }
      let batch: BatchView;
      try {
        batch = await startProblemReplay(pool, projectId, problemId, input);
      } catch (error) {
        return refused(ctx.io, error);
      }
      ctx.io.out(summary(batch));
      if (!args.flags.has('--wait')) {
        ctx.io.out(`a worker instance runs it; follow it with: jtrace problem:replay-status ${batch.id}`);
        return EXIT_OK;
      }
      // Runs here as a worker would (a running worker may take part: the lease keeps each journey to one).
      const allowedHosts = config.replayAllowedHosts ?? (config.databaseUrl === null ? ['localhost', '127.0.0.1'] : []);
      const runner = startProblemReplayRunner({ pool, keyring, allowedHosts, version: readBuildInfo().version, now: Date.now, pollMs: WAIT_POLL_MS });
      try {
        let last = '';
        while (batch.status === 'running') {
          await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
          batch = (await getProblemReplay(pool, projectId, batch.id))!;
          const line = summary(batch);
          if (line !== last) ctx.io.out(line);
          last = line;
        }
      } finally {
        await runner.stop();
      }
      return EXIT_OK;
    });
  },
};

export const problemReplayStatus: Command = {
  name: 'problem:replay-status',
  usage: 'problem:replay-status <batchId> [--json]',
  summary: 'the progress and verdict counts of a batch replay, and each journey with its verdict',
  spec: { positionals: ['batchId'], options: { '--json': {} } },
  async run(ctx, args) {
    return ctx.withServices(async ({ pool }) => {
      const batchId = args.positionals.batchId!;
      const projectId = await projectOfBatch(pool, batchId);
      const batch = projectId === null ? null : await getProblemReplay(pool, projectId, batchId);
      if (projectId === null || batch === null) {
        ctx.io.err(`no batch replay ${JSON.stringify(batchId.slice(0, 64))}`);
        return EXIT_FAILED;
      }
      const results = (await listProblemReplayResults(pool, projectId, batch.id, null, 0, MAX_EXPORT_ROWS)).items;
      if (args.flags.has('--json')) {
        ctx.io.out(JSON.stringify({ batch, results }, null, 2));
        return EXIT_OK;
      }
      ctx.io.out(summary(batch));
      for (const r of results) ctx.io.out(`${r.journeyId}  ${r.verdict}${r.error === null ? '' : `  ${r.error.code}: ${r.error.message}`}`);
      return EXIT_OK;
    });
  },
};

export const problemReplayCancel: Command = {
  name: 'problem:replay-cancel',
  usage: 'problem:replay-cancel <batchId>',
  summary: 'cancel a batch replay: replays in flight finish, nothing new starts; writes problem_replay.cancelled',
  spec: { positionals: ['batchId'] },
  async run(ctx, args) {
    return ctx.withServices(async ({ pool }) => {
      const batchId = args.positionals.batchId!;
      const projectId = await projectOfBatch(pool, batchId);
      const batch = projectId === null ? null : await cancelProblemReplay(pool, projectId, batchId);
      if (batch === null) {
        ctx.io.err(`no batch replay ${JSON.stringify(batchId.slice(0, 64))}`);
        return EXIT_FAILED;
      }
      ctx.io.out(summary(batch));
      return EXIT_OK;
    });
  },
};
