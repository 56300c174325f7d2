// The create-replay body (section 4): eventId, destinationId (uuid), method (default POST) and
// path. There is no payload or headers field; unknown keys are ignored.

import { z } from 'zod';
import { invalidBody, issueDetails, textField } from '../http/body-fields.ts';
import { AppError } from '../http/errors.ts';
import { hasNul, isUuid } from '../protocol/identifiers.ts';
import type { ReplayMethod } from './runs-sql.ts';
import { checkReplayPath } from './url-policy.ts';

const REPLAY_METHODS = ['POST', 'PUT', 'PATCH'] as const satisfies readonly ReplayMethod[];

/** The route contract's body and the validator; every problem is one `details` item. */
export const replayBodySchema = z.object({
  eventId: textField().refine((value) => value !== '', 'must not be empty'),
  destinationId: textField()
    .refine(isUuid, 'must be a uuid')
    .meta({ format: 'uuid' })
    .transform((value) => value.toLowerCase()),
  method: z
    .enum(REPLAY_METHODS, {
      error: (issue) =>
        typeof issue.input !== 'string'
          ? 'must be a string'
          : hasNul(issue.input)
            ? 'must not hold a NUL character'
            : `must be one of ${REPLAY_METHODS.join(', ')}`,
    })
    .default('POST'),
  path: textField().superRefine((value, ctx) => {
    const checked = checkReplayPath(value);
    if (!checked.ok) ctx.addIssue({ code: 'custom', message: checked.message });
  }),
});

export type ReplayInput = z.output<typeof replayBodySchema>;

/** Throws 400 invalid_request listing every problem; nothing is looked up before this passes. */
export function parseReplayInput(body: unknown): ReplayInput {
  if (body === undefined) {
    throw new AppError('invalid_request', 'The request needs a JSON body.', [{ path: '', message: 'is required' }]);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_request', 'The body must be a JSON object.', [{ path: '', message: 'must be an object' }]);
  }
  const parsed = replayBodySchema.safeParse(body);
  if (!parsed.success) throw invalidBody(issueDetails(parsed.error.issues));
  return parsed.data;
}
