// Answers of the reads (interface spec 2 and 4; event protocol 10): journey summaries and
// details, event rows and stored events, projects, and the web interface's activity chart.
import { z } from 'zod';
import { findingSchema } from './findings.ts';
import { jsonValue, journeyStatusSchema, operationSchema, payloadChangeSchema, timestampSchema } from '../answers.ts';

/** What a redaction rule leaves of any value it matches (event protocol 5.1). */
const redacted = z.literal('[REDACTED]');

const entitySchema = z.strictObject({
  type: z.string(),
  id: z.string().nullable().describe('Decrypted; null when the key that encrypted it is no longer configured.'),
});

export const aliasViewSchema = z
  .strictObject({
    type: z.string(),
    displayValue: z.string().nullable().describe('Masked unless displayable; null when the key that encrypted it is no longer configured.'),
    displayable: z.boolean(),
  })
  .meta({ id: 'Alias', description: 'An alias of a journey, masked by the journey\'s current display flag (event protocol 4.3).' });

export const deploymentMetadataSchema = z
  .strictObject({ gitCommit: z.string().optional(), version: z.string().optional(), image: z.string().optional() })
  .meta({ id: 'DeploymentMetadata', description: 'The event\'s deployment object, redacted; members not sent are absent.' });

/** Fields shared by the journey summary and the journey detail. */
const journeyFields = {
  journeyId: z.string().describe('Opaque, at most 128 characters.'),
  environment: z.string(),
  entity: entitySchema,
  status: journeyStatusSchema,
  label: z.string().nullable(),
  lastStep: z.string().nullable().describe('Name of the latest event in timeline order.'),
  failedStep: z.string().nullable().describe('Name of the step that failed the journey; null unless status is failed.'),
  eventCount: z.int(),
  startedAt: timestampSchema,
  lastEventAt: timestampSchema,
};

export const journeySummarySchema = z
  .strictObject({
    ...journeyFields,
    displayableAliases: z
      .array(z.strictObject({ type: z.string(), value: z.string() }))
      .describe('Only aliases shown in full, by type then value; masked aliases are never listed.'),
    findings: z.array(findingSchema).describe('The journey\'s first findings (at most 10), in the order the analyzer found them.'),
  })
  .meta({ id: 'JourneySummary', description: 'An item of search and of the journey list (interface spec 2).' });

export const journeyDetailSchema = z
  .strictObject({
    ...journeyFields,
    aliases: z.array(aliasViewSchema).describe('In type order, then first-stored order; at most the first 10,000.'),
    aliasesTruncated: z.boolean().describe('The journey holds more aliases than the 10,000 listed.'),
    services: z.array(z.string()).describe('Distinct service names, in byte order.'),
    completedAt: timestampSchema.nullable().describe('When the journey last recorded a completion; never cleared.'),
    findings: z.array(findingSchema).describe('Every finding of the journey, in the order the analyzer found them.'),
  })
  .meta({ id: 'Journey', description: 'A journey (interface spec 2; event protocol 10.2).' });

export const journeyEventRowSchema = z
  .strictObject({
    id: z.string(),
    operation: operationSchema,
    name: z.string(),
    service: z.string(),
    eventTimestamp: timestampSchema,
    receivedAt: timestampSchema,
    durationMs: z.int().nullable(),
    hasInput: z.boolean(),
    hasOutput: z.boolean(),
    hasError: z.boolean(),
    deploymentMetadata: deploymentMetadataSchema.nullable(),
  })
  .meta({ id: 'JourneyEventRow', description: 'An item of a journey\'s event list; payloads are not on the row.' });

const payloadDiffSchema = z
  .strictObject({ changes: z.array(payloadChangeSchema), truncated: z.boolean() })
  .meta({ id: 'PayloadDiff', description: 'Stored input against stored output, at most 500 changes (event protocol 6).' });

const storedErrorSchema = z
  .strictObject({ type: z.string().optional(), message: z.string(), code: z.string().optional(), stack: z.string().optional() })
  .meta({ id: 'StoredError', description: 'The event\'s error, redacted and masked; stack only under full capture.' });

const runtimeMetadataSchema = z
  .strictObject({
    language: z.string().optional(),
    version: z.string().optional(),
    hostname: z.string().optional(),
    processId: z.union([z.int(), redacted]).optional(),
    sdk: z.union([z.strictObject({ name: z.string(), version: z.string(), commit: z.string().optional() }), redacted]).optional(),
  })
  .meta({ id: 'RuntimeMetadata', description: 'The event\'s runtime object, redacted; members not sent are absent.' });

const storedEventFields = {
  id: z.string(),
  journeyId: z.string(),
  parentEventId: z.string().nullable(),
  traceId: z.string().nullable(),
  spanId: z.string().nullable(),
  messageId: z.string().nullable(),
  correlationId: z.string().nullable(),
  operation: operationSchema,
  name: z.string(),
  service: z.string(),
  eventTimestamp: timestampSchema,
  durationMs: z.int().nullable(),
  hasInput: z.boolean(),
  hasOutput: z.boolean(),
  hasError: z.boolean(),
  inputPayload: jsonValue('The input as the capture mode stored it; null when none was stored.'),
  outputPayload: jsonValue('The output as the capture mode stored it; null when none was stored.'),
  payloadDiff: payloadDiffSchema.nullable(),
  error: storedErrorSchema.nullable(),
  runtimeMetadata: runtimeMetadataSchema.nullable(),
  deploymentMetadata: deploymentMetadataSchema.nullable(),
  customMetadata: z.record(z.string(), z.unknown()).nullable().describe('The event\'s metadata object, redacted.'),
  aliases: z
    .array(aliasViewSchema)
    .nullable()
    .describe('The aliases this event stated, in type order; null for an event stored before they were recorded.'),
};

export const storedEventSchema = z
  .strictObject({ ...storedEventFields, receivedAt: timestampSchema })
  .meta({ id: 'StoredEvent', description: 'A stored event (interface spec 2; event protocol 10.1).' });

/** What a dry run previews: the stored event without receivedAt (event protocol 8.5). */
export const storedEventPreviewSchema = z
  .strictObject(storedEventFields)
  .meta({ id: 'StoredEventPreview', description: 'What GET /v1/events/:eventId would answer, without receivedAt.' });

export const projectSchema = z
  .strictObject({
    id: z.uuid(),
    name: z.string(),
    slug: z.string().describe('Lowercase letters, digits and hyphens.'),
    environments: z.array(z.string()).describe('Environment names, sorted.'),
  })
  .meta({ id: 'Project', description: 'A project with the names of its environments.' });

export const activitySchema = z
  .strictObject({
    since: timestampSchema,
    until: timestampSchema,
    bucketSeconds: z.int().describe('Width of every bucket.'),
    buckets: z.array(
      z.strictObject({ start: timestampSchema, active: z.int(), completed: z.int(), failed: z.int() }).describe('Journeys by status whose lastEventAt falls in the bucket.'),
    ),
  })
  .meta({ id: 'JourneyActivity', description: 'Journeys per bucket of lastEventAt and status, with the journey list filters.' });
