// The create-replay body (section 4): eventId, destinationId (uuid), method (default POST) and
// path. There is no payload or headers field; unknown keys are ignored.

import { isUuid } from '../protocol/identifiers.ts';
import { invalidBody, textField } from '../http/body-fields.ts';
import { AppError, type ErrorDetail } from '../http/errors.ts';
import type { ReplayMethod } from './runs-sql.ts';
import { checkReplayPath } from './url-policy.ts';

export const REPLAY_METHODS: readonly ReplayMethod[] = ['POST', 'PUT', 'PATCH'];

export interface ReplayInput {
  eventId: string;
  destinationId: string;
  method: ReplayMethod;
  path: string;
}

/** Throws 400 invalid_request listing every problem; nothing is looked up before this passes. */
export function parseReplayInput(body: unknown): ReplayInput {
  if (body === undefined) {
    throw new AppError('invalid_request', 'The request needs a JSON body.', [{ path: '', message: 'is required' }]);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_request', 'The body must be a JSON object.', [{ path: '', message: 'must be an object' }]);
  }
  const fields = body as Record<string, unknown>;
  const problems: ErrorDetail[] = [];
  const text = (key: string, required: boolean): string | null => textField(fields, key, problems, required);
  const eventId = text('eventId', true);
  if (eventId === '') problems.push({ path: 'eventId', message: 'must not be empty' });
  const destinationId = text('destinationId', true);
  if (destinationId !== null && !isUuid(destinationId)) problems.push({ path: 'destinationId', message: 'must be a uuid' });
  const method = text('method', false) ?? 'POST';
  if (!(REPLAY_METHODS as readonly string[]).includes(method)) {
    problems.push({ path: 'method', message: `must be one of ${REPLAY_METHODS.join(', ')}` });
  }
  const path = text('path', true);
  if (path !== null) {
    const checked = checkReplayPath(path);
    if (!checked.ok) problems.push({ path: 'path', message: checked.message });
  }
  if (problems.length > 0) throw invalidBody(problems);
  return { eventId: eventId!, destinationId: destinationId!.toLowerCase(), method: method as ReplayMethod, path: path! };
}
