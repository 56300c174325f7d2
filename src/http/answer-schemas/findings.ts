// Answers of findings (docs/findings.md): a journey's findings on the list and the journey
// read, the findings summary, expectations and their suggestion.
import { z } from 'zod';
import { timestampSchema } from '../answers.ts';

export const FINDING_KIND_VALUES = ['lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step'] as const;

const findingStepSchema = z.strictObject({ eventId: z.string(), service: z.string(), name: z.string() });

export const findingSchema = z
  .strictObject({
    kind: z.enum(FINDING_KIND_VALUES),
    path: z.string().nullable().describe('The field path of lost and changed; the missing step of skipped_step.'),
    step: findingStepSchema.nullable().describe('Where it was observed: the losing, repeated or failed step.'),
    inTransit: z.boolean().describe('Lost or changed between from and step, not inside step.'),
    from: findingStepSchema.nullable(),
  })
  .meta({ id: 'Finding', description: 'A finding of the analyzer: an annotation beside the journey that never changes its status.' });

export const findingsSummarySchema = z.strictObject({
  since: timestampSchema,
  until: timestampSchema,
  environment: z.string().nullable(),
  counts: z.strictObject(Object.fromEntries(FINDING_KIND_VALUES.map((kind) => [kind, z.int()])) as Record<(typeof FINDING_KIND_VALUES)[number], z.ZodInt>).describe('Journeys with at least one finding of each kind.'),
  topLostFields: z
    .array(
      z.strictObject({
        path: z.string(),
        journeys: z.int().describe('Journeys that lost it.'),
        step: z.strictObject({ service: z.string(), name: z.string() }).describe('The step where it was lost most.'),
        stepJourneys: z.int().describe('Journeys that lost it at that step.'),
      }),
    )
    .describe('Lost field paths, most journeys first, at most 20.'),
});

export const expectationSchema = z
  .strictObject({
    entityType: z.string(),
    steps: z.array(z.strictObject({ name: z.string(), optional: z.boolean() })),
    finalStep: z.string(),
    maxGapSeconds: z.int().nullable(),
    deadlineSeconds: z.int().nullable(),
    updatedAt: timestampSchema,
  })
  .meta({ id: 'Expectation', description: 'What a journey of one entity type should look like.' });

export const expectationSuggestionSchema = z.strictObject({
  entityType: z.string(),
  journeys: z.int().describe('Completed journeys the suggestion was made from.'),
  steps: z.array(z.strictObject({ name: z.string(), optional: z.boolean() })),
  finalStep: z.string().nullable(),
  maxGapSeconds: z.int().nullable().describe('The 99th percentile of the gaps between steps, rounded up.'),
  deadlineSeconds: z.int().nullable().describe('The 99th percentile of the journeys\' durations, rounded up.'),
});

export const expectationPreviewSchema = z.strictObject({
  journeys: z.int().describe('Recent journeys of the entity type read (at most 500).'),
  overdue: z.int().describe('Of those, journeys the expectation would find overdue.'),
  skippedStep: z.int().describe('Of those, journeys the expectation would find skipping a required step.'),
  unseenSteps: z.array(z.string()).describe('Named steps (the final one included) that none of those journeys has.'),
});

export const alertTestDeliverySchema = z.strictObject({
  outcome: z.enum(['sent', 'error_status', 'failed', 'blocked']),
  statusCode: z.int().nullable(),
  error: z.string().nullable().describe('Why it was not sent or not answered (host_not_allowed, timeout, ...).'),
  durationMs: z.int().nullable(),
});

export const alertRuleSchema = z
  .strictObject({
    id: z.uuid(),
    name: z.string(),
    kind: z.enum([...FINDING_KIND_VALUES, 'regression']).describe('A finding kind, or regression: resolved problems that came back.'),
    path: z.string().nullable(),
    entityType: z.string().nullable(),
    environment: z.string().nullable(),
    threshold: z.strictObject({ count: z.int(), windowMinutes: z.int() }),
    channel: z.strictObject({ type: z.enum(['webhook', 'slack']), url: z.string() }),
    mutedUntil: timestampSchema.nullable(),
    state: z.enum(['ok', 'firing']),
    createdAt: timestampSchema,
  })
  .meta({ id: 'AlertRule', description: 'An alert rule on findings; its signing secret is shown only when it is created.' });

export const newAlertRuleSchema = alertRuleSchema.extend({
  secret: z.string().describe('The HMAC-SHA256 signing secret of x-jtrace-signature; shown this once.'),
});

export const alertDeliverySchema = z
  .strictObject({
    notificationId: z.uuid(),
    notification: z.enum(['firing', 'resolved']),
    windowStart: timestampSchema,
    attempt: z.int(),
    outcome: z.enum(['sent', 'error_status', 'failed', 'blocked', 'gave_up']),
    statusCode: z.int().nullable(),
    error: z.string().nullable(),
    at: timestampSchema,
  })
  .meta({ id: 'AlertDelivery', description: 'One attempt to deliver a notification.' });
