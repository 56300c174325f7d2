// Answers of batch replays (docs/problems.md, "Verifying a fix by replay").
import { z } from 'zod';
import { timestampSchema } from '../http/answers.ts';

export const batchSchema = z
  .strictObject({
    id: z.uuid(),
    problemId: z.uuid(),
    destinationId: z.uuid(),
    destinationName: z.string(),
    status: z.enum(['running', 'done', 'cancelled']),
    requested: z.int().describe('Journeys the batch replays: the number asked for, or fewer when the problem has fewer.'),
    completed: z.int(),
    counts: z.strictObject({ kept: z.int(), stillLost: z.int(), failed: z.int() }),
    ratePerSecond: z.number(),
    concurrency: z.int(),
    actor: z.strictObject({ type: z.enum(['user', 'admin_token', 'cli']), id: z.string().nullable(), name: z.string().nullable() }),
    createdAt: timestampSchema,
    finishedAt: timestampSchema.nullable(),
  })
  .meta({ id: 'ProblemReplay', description: "A batch replay of a problem's recorded inputs to a destination, with its verdict counts." });

export const resultSchema = z
  .strictObject({
    journeyId: z.string(),
    verdict: z.enum(['pending', 'kept', 'still_lost', 'failed']),
    replayId: z.uuid().nullable().describe('The replay run: GET /v1/replays/:replayId.'),
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    finishedAt: timestampSchema.nullable(),
  })
  .meta({ id: 'ProblemReplayResult', description: "One journey's replay in a batch and its verdict." });
