import { z } from 'zod';
import { issueDetails } from '../http/body-fields.ts';
import { AppError } from '../http/errors.ts';
import { codePointLength, hasNul } from '../protocol/identifiers.ts';
import { hasUnpairedSurrogate } from '../protocol/storability.ts';
import { MAX_ERASURE_VALUE_LENGTH } from './limits.ts';

/**
 * The erasure request (interface spec, Erase an identifier). Unknown keys are refused rather
 * than ignored: this body deletes data, and a misspelt `dry_run` must not turn a preview into
 * a real erasure.
 */
export const erasureRequestSchema = z.strictObject({
  value: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .refine((value) => !hasNul(value), 'must not hold a NUL character')
    .refine((value) => !hasUnpairedSurrogate(value), 'must not hold an unpaired surrogate')
    .refine((value) => codePointLength(value) <= MAX_ERASURE_VALUE_LENGTH, `must be at most ${MAX_ERASURE_VALUE_LENGTH} characters`)
    .refine((value) => value.trim() !== '', 'must not be empty or only white space'),
  environment: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .refine((value) => !hasNul(value), 'must not hold a NUL character')
    .refine((value) => !hasUnpairedSurrogate(value), 'must not hold an unpaired surrogate')
    .optional(),
  dryRun: z.boolean({ error: 'must be true or false' }).optional(),
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
