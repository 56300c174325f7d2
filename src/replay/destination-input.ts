// The create-destination body (section 4 and decisions "HTTP details"): name, baseUrl,
// environmentType and headers, all required; unknown keys are ignored.

import { z } from 'zod';
import { invalidBody, issueDetails, textField } from '../http/body-fields.ts';
import { AppError } from '../http/errors.ts';
import { hasUnpairedSurrogate } from '../protocol/storability.ts';
import { checkDestinationHeaders, type DestinationHeaders } from './header-policy.ts';
import { MAX_DESTINATION_NAME_LENGTH } from './limits.ts';
import { normalizeBaseUrl } from './url-policy.ts';

const ENVIRONMENT_TYPES = ['local', 'development', 'test'] as const;
export type EnvironmentType = (typeof ENVIRONMENT_TYPES)[number];

// Marks the one problem that is answered with its own code when it is the only one.
const ENVIRONMENT_TYPE_ISSUE = { code: 'invalid_environment_type' } as const;

// Stored as UTF-8, an unpaired surrogate would silently become U+FFFD: refused instead, as the
// erasure value is (docs/hostile-input.md).
const wellFormed = (value: string) => !hasUnpairedSurrogate(value);
const UNPAIRED_SURROGATE = { message: 'must not hold an unpaired surrogate', abort: true } as const;

/** The route contract's body and the validator; every problem is one `details` item. */
export const destinationBodySchema = z.object({
  name: textField()
    .refine(wellFormed, UNPAIRED_SURROGATE)
    .refine((value) => {
      const trimmed = value.trim();
      return trimmed !== '' && [...trimmed].length <= MAX_DESTINATION_NAME_LENGTH;
    }, `must be 1 to ${MAX_DESTINATION_NAME_LENGTH} characters, not only white space`)
    .transform((value) => value.trim()),
  baseUrl: textField().refine(wellFormed, UNPAIRED_SURROGATE).transform((raw, ctx) => {
    const checked = normalizeBaseUrl(raw);
    if (checked.ok) return checked.value;
    ctx.addIssue({ code: 'custom', message: checked.message });
    return z.NEVER;
  }),
  environmentType: textField()
    .refine((value) => (ENVIRONMENT_TYPES as readonly string[]).includes(value), {
      message: `must be one of ${ENVIRONMENT_TYPES.join(', ')}`,
      params: ENVIRONMENT_TYPE_ISSUE,
    })
    .meta({ enum: [...ENVIRONMENT_TYPES] })
    .transform((value) => value as EnvironmentType),
  // header-policy checks the headers and names the detail path of each problem.
  headers: z
    .unknown()
    .transform((value, ctx) => {
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', message: 'is required (send {} for none)' });
        return z.NEVER;
      }
      const checked = checkDestinationHeaders(value);
      if (checked.ok) return checked.value;
      for (const problem of checked.problems) {
        ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path === 'headers' ? [] : [problem.path.slice('headers.'.length)] });
      }
      return z.NEVER;
    })
    .meta({ type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'string' } }),
});

export type NewDestination = z.output<typeof destinationBodySchema> & { headers: DestinationHeaders };

/** Throws 400 invalid_request with every problem, or invalid_environment_type when that is the only one. */
export function parseNewDestination(body: unknown): NewDestination {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidBody([{ path: '', message: 'the body must be a JSON object' }]);
  }
  const parsed = destinationBodySchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const isEnvironmentType = (issue: z.core.$ZodIssue) => issue.code === 'custom' && issue.params?.code === ENVIRONMENT_TYPE_ISSUE.code;
  const others = parsed.error.issues.filter((issue) => !isEnvironmentType(issue));
  if (others.length > 0) throw invalidBody(issueDetails(others));
  throw new AppError('invalid_environment_type', `environmentType must be one of ${ENVIRONMENT_TYPES.join(', ')}.`, [
    { path: 'environmentType', message: `must be one of ${ENVIRONMENT_TYPES.join(', ')}` },
  ]);
}
