// Answers of ingestion (interface spec 4; event protocol 8): the accepted event, and one
// verdict per event of a batch.
import { z } from 'zod';
import { errorDetailsSchema } from '../answers.ts';
import { journeyDetailSchema, storedEventPreviewSchema } from './reads.ts';

export const acceptedEventSchema = z
  .strictObject({
    eventId: z.string(),
    journeyId: z.string(),
    status: z.literal('accepted'),
    duplicate: z.boolean().describe('True when the same event was already stored; nothing was written.'),
  })
  .meta({ id: 'AcceptedEvent', description: 'The event was stored, or was a duplicate of a stored event.' });

const acceptedResult = z.strictObject({
  eventId: z.string(),
  status: z.literal('accepted'),
  duplicate: z.boolean(),
  stored: z
    .strictObject({ event: storedEventPreviewSchema, journey: journeyDetailSchema })
    .optional()
    .describe('Dry run, accepted and not a duplicate: what the event and its journey would read back as.'),
});

const rejectedResult = z.strictObject({
  eventId: z.string().nullable().describe('The sent event.id when it is a string of 1 to 128 characters, else null.'),
  status: z.literal('rejected'),
  error: z.strictObject({
    code: z.string().describe('A per-event refusal code (event protocol 9.3); treat an unknown one by its httpStatus.'),
    message: z.string(),
    httpStatus: z.int().describe('What the single-event route would answer; 500 and above may be resent.'),
    details: errorDetailsSchema.optional(),
  }),
});

export const batchResultSchema = z
  .discriminatedUnion('status', [acceptedResult, rejectedResult])
  .meta({ id: 'BatchResult', description: 'The verdict on one event of a batch, at its position (event protocol 8.1).' });

export const batchAnswerSchema = z
  .strictObject({ results: z.array(batchResultSchema) })
  .meta({ id: 'BatchAnswer', description: 'One result per sent event, in order.' });

export const dryRunAnswerSchema = z
  .strictObject({ dryRun: z.literal(true), results: z.array(batchResultSchema) })
  .meta({ id: 'BatchDryRunAnswer', description: 'The result each event would get; nothing was stored (event protocol 8.5).' });
