// Answers of the API keys of Settings: names and times, never a secret or a hash (docs/api.md).
import { z } from 'zod';
import { timestampSchema } from '../answers.ts';

export const apiKeySchema = z
  .strictObject({
    prefix: z.string().describe('The clear start of the key that names it, e.g. jtk_Ab3dE6gH.'),
    name: z.string(),
    environment: z.string(),
    createdBy: z
      .strictObject({
        kind: z.enum(['user', 'admin-token', 'api-key', 'cli']),
        email: z.string().nullable().describe("The person's e-mail at that time (kind user)."),
        keyPrefix: z.string().nullable(),
      })
      .nullable()
      .describe('Null for keys made before jtrace recorded their creator.'),
    createdAt: timestampSchema,
    lastUsedAt: timestampSchema.nullable().describe('Recorded to the minute.'),
    revokedAt: timestampSchema.nullable(),
  })
  .meta({ id: 'ApiKey', description: 'A project-environment API key, without its secret.' });

export const createdApiKeySchema = z.strictObject({
  key: apiKeySchema,
  apiKey: z.string().describe('The secret: shown in this answer only, never stored, never shown again.'),
});
