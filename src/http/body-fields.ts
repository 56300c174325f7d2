// Shared pieces of the zod-checked JSON bodies (settings, replay, destination and erasure
// requests): the schema is both the route contract's body and the validator, each issue becomes
// one `details` item, and the refusal is one 400 invalid_request listing them all.
import { z } from 'zod';
import { hasNul } from '../protocol/identifiers.ts';
import { isStorableText } from '../protocol/storability.ts';
import { AppError, type ErrorDetail } from './errors.ts';

const storableIssue = (issue: { input?: unknown }) =>
  typeof issue.input === 'string' && hasNul(issue.input) ? 'must not hold a NUL character' : 'must not hold an unpaired surrogate';

/**
 * The one rule for every text a setting stores (docs/hostile-input.md, "Text a setting stores"):
 * PostgreSQL text cannot hold U+0000 (the insert failed as a 500) and stores an unpaired
 * surrogate as U+FFFD without a word, so both are refused at the field's path before anything
 * else is checked. Chain length and form rules after it; JSON bodies carry these as \u0000 and
 * \uD800 escapes.
 */
export function storableText(): z.ZodString {
  return z.string().refine(isStorableText, { error: storableIssue, abort: true });
}

/** A required string field: missing, not a string, or not storable text is one problem each. */
export function textField(): z.ZodString {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .refine(isStorableText, { error: storableIssue, abort: true });
}

/** One `details` item per zod issue; an unknown key (strict objects) is named, cut to 64 characters. */
export function issueDetails(issues: readonly z.core.$ZodIssue[], unknownKey = 'is not a field'): ErrorDetail[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: key.slice(0, 64), message: unknownKey }))
      : [{ path: issue.path.join('.'), message: issue.message }],
  );
}

/** 400 invalid_request with every problem; the message names the first. */
export function invalidBody(problems: ErrorDetail[]): AppError {
  const first = problems[0]!;
  return new AppError('invalid_request', `${first.path} ${first.message}`, problems);
}
