// Answers of journey forensics (docs/forensics.md) and of the interface's event diff.
import { z } from 'zod';
import { jsonValue, operationSchema, timestampSchema } from '../answers.ts';
import { journeyDetailSchema } from './reads.ts';

const stepRefFields = { eventId: z.string(), service: z.string(), name: z.string() };
const stepRefSchema = z.strictObject(stepRefFields).meta({ id: 'StepRef', description: 'A step of a journey: its event.' });

export const readDiffSchema = z
  .strictObject({
    rows: z
      .array(
        z.strictObject({
          path: z.string().describe('Keys joined by ".", indices as [i]; the root is "".'),
          kind: z.enum(['lost', 'renamed', 'changed', 'added', 'removed']),
          before: jsonValue('The value before; absent for added.').optional(),
          after: jsonValue('The value after; absent for removed, and for a lost value whose key disappeared.').optional(),
          renamedFrom: z.string().optional().describe('renamed: the old key\'s path.'),
        }),
      )
      .describe('Lost first, then renamed, changed, added, removed.'),
    truncated: z.boolean().describe('True when rows past the cap (500) were left out.'),
  })
  .meta({ id: 'ReadDiff', description: 'A read-time diff: arrays aligned, renamed keys paired, losses named.' });

export const eventDiffSchema = z
  .strictObject({ comparable: z.boolean().describe('False unless the event stored both input and output.'), ...readDiffSchema.shape })
  .meta({ id: 'EventDiff', description: 'The field-level diff of an event\'s stored input against its stored output.' });

const verdictSchema = z.enum(['absent', 'appeared', 'unchanged', 'changed', 'lost', 'redacted', 'not_captured']);

const observationSchema = z
  .discriminatedUnion('state', [
    z.strictObject({ state: z.literal('present'), value: jsonValue('The value at the path.') }),
    z.strictObject({ state: z.literal('missing') }),
    z.strictObject({ state: z.literal('redacted'), value: z.literal('[REDACTED]') }),
  ])
  .nullable()
  .describe('The path in one stored payload; null when the step stored no such payload.');

const findingSchema = z
  .strictObject({
    ...stepRefFields,
    verdict: z.enum(['lost', 'changed']),
    inTransit: z.boolean().describe('True when it happened between from and this step, not inside this step.'),
    from: stepRefSchema.nullable(),
  })
  .meta({ id: 'FieldFinding', description: 'Where a followed value was lost or changed.' });

export const followedFieldSchema = z
  .strictObject({
    journeyId: z.string(),
    path: z.string(),
    steps: z.array(
      z.strictObject({
        ...stepRefFields,
        operation: operationSchema,
        eventTimestamp: timestampSchema,
        input: observationSchema,
        output: observationSchema,
        verdict: verdictSchema.describe('Input against output; with one stored, what that one shows.'),
        handOff: z
          .strictObject({ from: stepRefSchema, verdict: verdictSchema })
          .nullable()
          .describe('The previous step that stored a payload against this step\'s first stored payload.'),
      }),
    ),
    firstLoss: findingSchema.nullable(),
    firstDifference: findingSchema.nullable(),
    truncated: z.boolean().describe('The journey is over the event limit: only its first events were read.'),
  })
  .meta({ id: 'FollowedField', description: 'Every step with the value at the path and a verdict.' });

export const journeyChangesSchema = z
  .strictObject({
    journeyId: z.string(),
    changes: z.array(
      z.strictObject({
        path: z.string().describe('A followable path: indices as [*].'),
        kind: z.enum(['lost', 'renamed', 'changed', 'appeared', 'removed']),
        renamedFrom: z.string().optional(),
        steps: z.array(z.strictObject({ ...stepRefFields, inTransit: z.boolean(), from: stepRefSchema.nullable() })),
        stepCount: z.int().describe('Every step where it changed; steps lists the first ones.'),
      }),
    ),
    truncated: z.boolean().describe('The journey is over the event limit: only its first events were read.'),
    changesTruncated: z.boolean().describe('A step\'s diff was over its cap, or there were too many paths.'),
  })
  .meta({ id: 'JourneyChanges', description: 'Every changed path with the steps where it changed, lost first.' });

const comparedStepSchema = z
  .strictObject({
    index: z.int().describe('Position in its journey\'s timeline, from 0.'),
    eventId: z.string(),
    service: z.string(),
    name: z.string(),
    operation: operationSchema,
    eventTimestamp: timestampSchema,
    durationMs: z.int().nullable(),
    hasError: z.boolean(),
    inputStored: z.boolean(),
    outputStored: z.boolean(),
  })
  .meta({ id: 'ComparedStep', description: 'A step of one of the compared journeys.' });

export const journeyComparisonSchema = z
  .strictObject({
    a: journeyDetailSchema,
    b: journeyDetailSchema,
    truncated: z.strictObject({ a: z.boolean(), b: z.boolean() }),
    pairs: z.array(
      z.strictObject({
        status: z.enum(['matched', 'moved', 'only_a', 'only_b']),
        a: comparedStepSchema.nullable(),
        b: comparedStepSchema.nullable(),
        inputDiff: readDiffSchema.nullable(),
        outputDiff: readDiffSchema.nullable(),
        differs: z.boolean(),
      }),
    ),
    firstDifference: z.int().nullable().describe('Index in pairs of the first pair that differs.'),
    exactAlignment: z.boolean().describe('False when the timelines were too long to align fully.'),
    diffRowsTruncated: z
      .boolean()
      .describe('True when the diffs held more rows than one answer carries (20,000): later pairs carry the first rows only, their diffs flagged truncated; differs still counts every row.'),
  })
  .meta({ id: 'JourneyComparison', description: 'Both journeys and their aligned steps with the diffs of inputs and outputs.' });
