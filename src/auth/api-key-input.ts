// The body of POST /v1/projects/:projectId/api-keys: the route contract's body and its validator.
import { z } from 'zod';
import { invalidBody, issueDetails, textField } from '../http/body-fields.ts';
import type { AppError } from '../http/errors.ts';
import { MAX_API_KEY_NAME_LENGTH, MAX_ENVIRONMENT_NAME_LENGTH } from './api-key-service.ts';

function boundedText(max: number) {
  // textField refuses NUL and unpaired surrogates first (stored as UTF-8, one would become U+FFFD).
  return textField()
    .refine((value) => {
      const trimmed = value.trim();
      return trimmed !== '' && [...trimmed].length <= max;
    }, `must be 1 to ${max} characters, not only white space`)
    .transform((value) => value.trim());
}

export const apiKeyBodySchema = z.strictObject({
  name: boundedText(MAX_API_KEY_NAME_LENGTH),
  /** Created with the default retention when the project has no environment of that name (as key:create). */
  environment: boundedText(MAX_ENVIRONMENT_NAME_LENGTH),
});

export type ApiKeyBody = z.output<typeof apiKeyBodySchema>;

export function parseApiKeyBody(body: unknown): ApiKeyBody | AppError {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return invalidBody([{ path: 'body', message: 'must be a JSON object' }]);
  const parsed = apiKeyBodySchema.safeParse(body);
  return parsed.success ? parsed.data : invalidBody(issueDetails(parsed.error.issues));
}
