import { z } from 'zod';
import { issueDetails, textField } from '../http/body-fields.ts';
import { AppError } from '../http/errors.ts';
import { codePointLength } from '../protocol/identifiers.ts';
import { MAX_ERASURE_VALUE_LENGTH } from './limits.ts';

/**
 * The erasure request (interface spec, Erase an identifier). Unknown keys are refused rather
 * than ignored: this body deletes data, and a misspelt `dry_run` must not turn a preview into
 * a real erasure.
 */
export const erasureRequestSchema = z.strictObject({
  value: textField()
    .refine((value) => codePointLength(value) <= MAX_ERASURE_VALUE_LENGTH, `must be at most ${MAX_ERASURE_VALUE_LENGTH} characters`)
    .refine((value) => value.trim() !== '', 'must not be empty or only white space'),
  environment: textField().min(1, 'must not be empty').optional(),
  dryRun: z.boolean({ error: 'must be true or false' }).optional(),
  // loose: an e-mail address ignoring case, a phone number in any spelling (docs/decisions.md).
  match: z.enum(['exact', 'loose'], { error: 'must be exact or loose' }).optional(),
});

export type ErasureRequest = z.infer<typeof erasureRequestSchema>;

/** Parses a request body or CLI input; anything wrong is 400 invalid_request with one detail per problem. */
export function parseErasureRequest(body: unknown): ErasureRequest {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('invalid_request', 'The body must be a JSON object with a value.', [{ path: '', message: 'must be an object' }]);
  }
  const parsed = erasureRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const details = issueDetails(parsed.error.issues, 'is not a field of an erasure');
  const first = details[0]!;
  throw new AppError('invalid_request', `${first.path || 'The body'} ${first.message}.`, details);
}
