// Answers of erasure (interface spec 4, "Erase an identifier").
import { z } from 'zod';
import { timestampSchema } from '../answers.ts';

export const erasurePreviewSchema = z
  .strictObject({
    journeys: z
      .array(z.strictObject({ id: z.string(), environment: z.string(), entityType: z.string(), eventCount: z.int(), lastEventAt: timestampSchema }))
      .describe('At most 1,000, most recent first.'),
    total: z.int().describe('Every matching journey.'),
    forms: z
      .array(z.strictObject({ form: z.enum(['exact', 'email', 'phone', 'phone_national']), total: z.int() }))
      .optional()
      .describe('With match loose: how many journeys each form of the value finds.'),
  })
  .meta({ id: 'ErasurePreview', description: 'dryRun: the journeys an erasure would delete; nothing is deleted.' });

export const erasureResultSchema = z
  .strictObject({
    deletedJourneys: z.int(),
    deletedEvents: z.int(),
    complete: z.boolean().describe('False when a later batch failed: what is counted was deleted; run the erasure again.'),
    message: z.string().optional().describe('Present when complete is false, and when journeys that matched received events while the erasure ran: those are left in place; run the erasure again.'),
  })
  .meta({ id: 'ErasureResult', description: 'What an erasure deleted.' });
