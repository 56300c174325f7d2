// The expectation of one entity type: what a journey should look like. The route and the CLI
// validate with this one schema; the analyzer reads the same shape back from the database.

import { z } from 'zod';
import { storableText } from '../http/body-fields.ts';
import { MAX_EXPECTATION_NAME, MAX_EXPECTATION_STEPS } from './limits.ts';

const name = storableText().min(1).max(MAX_EXPECTATION_NAME);
/** Seconds, at most a year: a longer deadline says nothing. */
const seconds = z.number().int().positive().max(366 * 86_400);

export const expectationInputSchema = z
  .strictObject({
    steps: z.array(z.strictObject({ name, optional: z.boolean().default(false) })).max(MAX_EXPECTATION_STEPS),
    finalStep: name,
    maxGapSeconds: seconds.nullable().default(null),
    deadlineSeconds: seconds.nullable().default(null),
  })
  // A final step outside a listed order would never be reached in it: every journey would be
  // overdue or skip a step. With no steps listed, the final step alone is the expectation.
  .refine((e) => e.steps.length === 0 || e.steps.some((step) => step.name === e.finalStep), {
    path: ['finalStep'],
    message: 'is not one of the steps',
  });

export type ExpectationInput = z.input<typeof expectationInputSchema>;
export type Expectation = z.output<typeof expectationInputSchema>;
