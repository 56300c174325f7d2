// Answers of replay (interface spec 2 and 4): destinations, runs and the interface's preview.
import { z } from 'zod';
import { jsonValue, payloadChangeSchema, timestampSchema } from '../answers.ts';

const methodSchema = z.enum(['POST', 'PUT', 'PATCH']);
const blockedReasonSchema = z.enum(['host_not_allowed', 'headers_key_not_configured']);

export const destinationSchema = z
  .strictObject({
    id: z.uuid(),
    name: z.string(),
    baseUrl: z.string().describe('An origin with an optional base path.'),
    environmentType: z.enum(['local', 'development', 'test']),
    headerNames: z.array(z.string()).describe('Names of the configured headers; their values are never returned.'),
    disabled: z.boolean(),
    createdAt: timestampSchema,
  })
  .meta({ id: 'ReplayDestination', description: 'A replay destination; header values are never returned.' });

/** A list item: the destination, and its run count when the list was asked for it. */
export const destinationListItemSchema = destinationSchema
  .extend({ runCount: z.int().nonnegative().optional().describe('With include=runCount only: replay runs sent to it, which a delete removes.') })
  .meta({ id: 'ReplayDestinationListItem', description: 'A replay destination as listed; header values are never returned.' });

export const replayRunSchema = z
  .strictObject({
    id: z.uuid(),
    eventId: z.string(),
    destinationId: z.uuid(),
    method: methodSchema,
    path: z.string(),
    requestPayload: jsonValue('The event\'s recorded input, as stored.'),
    requestHeaders: z.record(z.string(), z.string()).describe('Every header sent; [REDACTED] for each destination header.'),
    status: z.enum(['completed', 'failed', 'blocked']).describe('blocked: nothing was sent (host not allowed, or headers that cannot be decrypted).'),
    responseStatus: z.int().nullable(),
    responsePayload: jsonValue('The response body (JSON, else text), destination header values replaced; null without a response.'),
    durationMs: z.int().nullable(),
    error: z.string().nullable().describe('Why the request failed, or the blocked reason.'),
    createdAt: timestampSchema,
    completedAt: timestampSchema.nullable(),
    comparison: z
      .array(payloadChangeSchema)
      .nullable()
      .describe('The recorded output against the response; null when the run did not complete or no output was recorded.'),
  })
  .meta({ id: 'ReplayRun', description: 'A replay run (interface spec 2).' });

export const replayPreviewSchema = z
  .strictObject({
    method: methodSchema,
    url: z.string(),
    headers: z.record(z.string(), z.string()).describe('Destination header values are [REDACTED]; jtrace\'s own headers are shown.'),
    body: z.string().describe('The exact body text a send would carry: the event\'s recorded input.'),
    blocked: blockedReasonSchema.nullable().describe('Set when a send would be stored as a blocked run.'),
  })
  .meta({ id: 'ReplayPreview', description: 'What a replay would send; nothing is sent or stored.' });

export const urlCheckSchema = z
  .strictObject({
    baseUrl: z.string().nullable().describe('The form that would be stored; null when the URL is refused.'),
    problems: z.array(z.strictObject({ path: z.string(), message: z.string() })).describe('Why a create or edit would refuse it; empty when none.'),
    hostAllowed: z.boolean().nullable().describe('Whether REPLAY_ALLOWED_HOSTS lets replays reach the host; null when the URL is refused.'),
  })
  .meta({ id: 'ReplayUrlCheck', description: 'A base URL checked against the replay URL policy; nothing is stored.' });
