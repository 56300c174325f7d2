// Answers of the Settings routes for projects, environments, the capture preview and the
// instance (docs/api.md, "Settings").
import { z } from 'zod';
import { errorDetailsSchema, jsonValue, timestampSchema } from '../answers.ts';

const captureModeSchema = z.enum(['metadata-only', 'allowlisted-fields', 'redacted-payload', 'full-payload']);

export const settingsChangeSchema = z
  .strictObject({
    id: z.int(),
    action: z.string().describe('project.created, project.renamed, environment.created, environment.updated ...'),
    subject: z.string().describe("What changed: an environment's name, a project's slug."),
    before: z.record(z.string(), z.unknown()).nullable().describe('The changed settings before; null for a creation.'),
    after: z.record(z.string(), z.unknown()).nullable(),
    actor: z.strictObject({ kind: z.string(), email: z.string().nullable(), keyPrefix: z.string().nullable() }),
    createdAt: timestampSchema,
  })
  .meta({ id: 'SettingsChange', description: 'One row of the settings history: who changed what, before and after.' });

export const environmentSettingsSchema = z
  .strictObject({
    name: z.string(),
    captureMode: captureModeSchema,
    retentionDays: z.int(),
    redactionPaths: z.array(z.string()),
    captureAllowlist: z.array(z.string()),
  })
  .meta({ id: 'EnvironmentSettings', description: "An environment's capture mode, retention, redaction rules and capture allowlist." });

export const environmentDetailSchema = environmentSettingsSchema
  .extend({
    fullPayloadAllowed: z.boolean().describe('Whether this server captures full payloads (ALLOW_FULL_PAYLOAD_CAPTURE).'),
    effectiveCaptureMode: captureModeSchema.describe('The mode capture applies: full-payload acts as redacted-payload when not allowed.'),
    history: z.array(settingsChangeSchema).describe("The environment's latest settings changes, newest first (at most 20)."),
    recentEvents: z
      .array(z.strictObject({ id: z.string(), journeyId: z.string(), service: z.string(), name: z.string(), eventTimestamp: timestampSchema }))
      .describe('Events of its latest journeys, to preview capture with (at most 10).'),
  })
  .meta({ id: 'EnvironmentDetail', description: 'An environment with what its settings page shows.' });

const objectOrNull = z.record(z.string(), z.unknown()).nullable();

export const capturePreviewSchema = z.strictObject({
  effectiveCaptureMode: captureModeSchema,
  malformedRules: z.array(z.string()),
  refusal: z.strictObject({ code: z.string(), message: z.string(), details: errorDetailsSchema.optional() }).nullable().describe('Why ingestion would refuse the event; null when it would store it.'),
  stored: z
    .strictObject({
      hasInput: z.boolean(),
      hasOutput: z.boolean(),
      inputPayload: jsonValue('The input as it would be stored; null when none.'),
      outputPayload: jsonValue('The output as it would be stored; null when none.'),
      error: objectOrNull,
      runtimeMetadata: objectOrNull,
      deploymentMetadata: objectOrNull,
      customMetadata: objectOrNull,
    })
    .nullable()
    .describe('What would be stored, named as GET /v1/events/:eventId names it.'),
});

const checkSchema = z.strictObject({ status: z.enum(['ok', 'warn', 'fail', 'skip']), check: z.string(), detail: z.string(), fix: z.string().optional() });
const keyCountsSchema = z.strictObject({ current: z.int(), previous: z.int(), unreadable: z.int() });

export const instanceSchema = z.strictObject({
  version: z.string(),
  commit: z.string().nullable(),
  buildSource: z.enum(['build', 'package']),
  migrations: z.strictObject({ applied: z.array(z.int()), latest: z.int(), pending: z.int() }),
  keyRotation: z.strictObject({
    currentKeyId: z.string(),
    previousKeyId: z.string().nullable(),
    kinds: z.array(keyCountsSchema.extend({ kind: z.string(), label: z.string() })),
    apiKeys: keyCountsSchema,
    done: z.boolean().describe('What rotate:status exits 0 on: every value rotate:reencrypt moves is under the current key.'),
  }),
  checks: z.array(checkSchema).describe('The checks of jtrace doctor that apply to a running server.'),
  otlpEnabled: z.boolean(),
  fullPayloadCaptureAllowed: z.boolean(),
});
