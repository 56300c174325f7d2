// Field readers shared by the hand-checked JSON bodies (replay and destination creation): each
// problem becomes one `details` item, and the refusal is one 400 invalid_request listing them all.
import { hasNul } from '../protocol/identifiers.ts';
import { AppError, type ErrorDetail } from './errors.ts';

/** A string field, or null with a problem: missing (when required), not a string, or holding NUL. */
export function textField(fields: Record<string, unknown>, key: string, problems: ErrorDetail[], required = true): string | null {
  const value = fields[key];
  if (value === undefined) {
    if (required) problems.push({ path: key, message: 'is required' });
  } else if (typeof value !== 'string') problems.push({ path: key, message: 'must be a string' });
  else if (hasNul(value)) problems.push({ path: key, message: 'must not hold a NUL character' });
  else return value;
  return null;
}

/** 400 invalid_request with every problem; the message names the first. */
export function invalidBody(problems: ErrorDetail[]): AppError {
  const first = problems[0]!;
  return new AppError('invalid_request', `${first.path} ${first.message}`, problems);
}
