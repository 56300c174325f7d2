// Answers of problems (docs/problems.md): findings grouped by kind, field and place, with
// their status, counts, releases and series.
import { z } from 'zod';
import { timestampSchema } from '../answers.ts';
import { FINDING_KIND_VALUES } from './findings.ts';

const placeSchema = z.strictObject({ service: z.string(), name: z.string() });

export const problemSchema = z
  .strictObject({
    id: z.uuid(),
    environment: z.string(),
    kind: z.enum(FINDING_KIND_VALUES),
    path: z.string().nullable().describe('The field path (lost, changed); the missing step (skipped_step).'),
    step: placeSchema.nullable().describe('Where it happened; for a loss in transit, the step the value did not arrive at.'),
    from: placeSchema.nullable().describe('For a loss in transit, the step the value left; for an overdue gap, the step before it.'),
    inTransit: z.boolean(),
    status: z.enum(['open', 'regressed', 'resolved', 'ignored', 'expected']),
    statusChangedAt: timestampSchema,
    journeys: z.int().describe('Journeys that have it now.'),
    firstSeen: timestampSchema.nullable(),
    lastSeen: timestampSchema.nullable(),
    resolution: z.strictObject({ at: timestampSchema, inNextRelease: z.boolean() }).nullable(),
    ignore: z.strictObject({ until: timestampSchema.nullable(), moreJourneys: z.int().nullable(), journeysSince: z.int() }).nullable(),
    regression: z.strictObject({ since: timestampSchema, release: z.string().nullable() }).nullable(),
  })
  .meta({ id: 'Problem', description: 'Findings with the same environment, kind, field path and place.' });

const seriesSchema = z.strictObject({ start: timestampSchema, counts: z.array(z.int()) });

export const problemDetailSchema = problemSchema
  .extend({
    releases: z.array(z.strictObject({ release: z.string().nullable(), journeys: z.int(), firstSeen: timestampSchema, lastSeen: timestampSchema })),
    hourly: seriesSchema.describe('Journeys by the hour of their last event, the last 7 days.'),
    daily: seriesSchema.describe('Journeys by the day (UTC) of their last event, over the retention period.'),
    examples: z.strictObject({ latest: z.string().nullable(), first: z.string().nullable() }),
  })
  .meta({ id: 'ProblemDetail', description: 'A problem with its releases, series and example journeys.' });

export const problemJourneySchema = z.strictObject({ journeyId: z.string(), lastEventAt: timestampSchema, release: z.string().nullable() });
