// The create-destination body (section 4 and decisions "HTTP details"): name, baseUrl,
// environmentType and headers, all required; unknown keys are ignored.

import { invalidBody as invalid, textField as stringField } from '../http/body-fields.ts';
import { AppError, type ErrorDetail } from '../http/errors.ts';
import { checkDestinationHeaders, type DestinationHeaders } from './header-policy.ts';
import { MAX_DESTINATION_NAME_LENGTH } from './limits.ts';
import { normalizeBaseUrl } from './url-policy.ts';

export const ENVIRONMENT_TYPES = ['local', 'development', 'test'] as const;
export type EnvironmentType = (typeof ENVIRONMENT_TYPES)[number];

export interface NewDestination {
  name: string;
  baseUrl: string;
  environmentType: EnvironmentType;
  headers: DestinationHeaders;
}

/** Throws 400 invalid_request with every problem, or invalid_environment_type when that is the only one. */
export function parseNewDestination(body: unknown): NewDestination {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid([{ path: '', message: 'the body must be a JSON object' }]);
  }
  const fields = body as Record<string, unknown>;
  const problems: ErrorDetail[] = [];

  const rawName = stringField(fields, 'name', problems);
  const name = rawName?.trim() ?? null;
  if (name !== null && (name === '' || [...name].length > MAX_DESTINATION_NAME_LENGTH)) {
    problems.push({ path: 'name', message: `must be 1 to ${MAX_DESTINATION_NAME_LENGTH} characters, not only white space` });
  }

  const rawUrl = stringField(fields, 'baseUrl', problems);
  let baseUrl: string | null = null;
  if (rawUrl !== null) {
    const checked = normalizeBaseUrl(rawUrl);
    if (checked.ok) baseUrl = checked.value;
    else problems.push({ path: 'baseUrl', message: checked.message });
  }

  const environmentType = stringField(fields, 'environmentType', problems);

  if (fields.headers === undefined) problems.push({ path: 'headers', message: 'is required (send {} for none)' });
  const headers = fields.headers === undefined ? null : checkDestinationHeaders(fields.headers);
  if (headers && !headers.ok) problems.push(...headers.problems);

  if (problems.length > 0) throw invalid(problems);
  if (!(ENVIRONMENT_TYPES as readonly string[]).includes(environmentType!)) {
    throw new AppError('invalid_environment_type', `environmentType must be one of ${ENVIRONMENT_TYPES.join(', ')}.`, [
      { path: 'environmentType', message: `must be one of ${ENVIRONMENT_TYPES.join(', ')}` },
    ]);
  }
  return {
    name: name!,
    baseUrl: baseUrl!,
    environmentType: environmentType as EnvironmentType,
    headers: (headers as { ok: true; value: DestinationHeaders }).value,
  };
}
