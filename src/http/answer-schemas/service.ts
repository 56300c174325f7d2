// Answers of the probes, the web interface's session and the OTLP routes.
import { z } from 'zod';
import { timestampSchema } from '../answers.ts';
import { principalSchema } from './teams.ts';

export const livenessSchema = z.strictObject({ status: z.literal('ok') });

/** Readiness with the build's version (interface spec 4, Health); 200 and 503 alike. */
// No component id and no description: at the root of an answer, an id would lose its definition
// (openapi-components.ts) and a description would replace the answer's own.
export const readinessSchema = z.strictObject({
  status: z.enum(['ready', 'not_ready']),
  reason: z.enum(['database_unavailable', 'migrations_pending']).optional().describe('Why not ready.'),
  version: z.string(),
  commit: z.string().optional().describe('Absent when the build recorded none.'),
  source: z.enum(['build', 'package']),
});

export const sessionSchema = z.strictObject({
  expiresAt: timestampSchema,
  ...principalSchema.shape,
});

/** OTLP/HTTP JSON export responses: int64 counts are decimal strings (proto3 JSON mapping). */
export const otlpTracesResponseSchema = z.strictObject({
  partialSuccess: z.strictObject({ rejectedSpans: z.string(), errorMessage: z.string() }).optional().describe('Present when spans were refused.'),
});
export const otlpLogsResponseSchema = z.strictObject({
  partialSuccess: z.strictObject({ rejectedLogRecords: z.string(), errorMessage: z.string() }).optional().describe('Present when log records were refused.'),
});
