// A replay: send an event's recorded input to a destination and store the run (section 4).
// Refusals that store nothing come first; then the host policy and the header key, whose
// refusals are stored as blocked runs; only then is anything sent.

import { randomUUID } from 'node:crypto';
import { isUuid } from '../protocol/identifiers.ts';
import { decryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import { AppError, errors } from '../http/errors.ts';
import { computePayloadDiff } from '../protocol/payload-diff.ts';
import { findDestinationRow } from './destinations-sql.ts';
import { replayOwnHeaders, scrubbableValues, storedRequestHeaders, type DestinationHeaders } from './header-policy.ts';
import { MAX_EVENT_ID_LENGTH } from './limits.ts';
import type { ReplayInput } from './replay-input.ts';
import { storedResponsePayload } from './response-payload.ts';
import { findReplayableEvent, findRun, insertRun, listRunsOfEvent, type NewRun, type ReplayRun } from './runs-sql.ts';
import { sendReplay, type SendOptions, type SendOutcome } from './sender.ts';
import { buildTargetUrl, isHostAllowed } from './url-policy.ts';

export interface ReplayDeps {
  pool: Pool;
  keyring: Keyring;
  /** REPLAY_ALLOWED_HOSTS as resolved at start; empty blocks every replay. */
  allowedHosts: readonly string[];
  /** Build version, sent in the user-agent. */
  version: string;
  now: () => number;
}

/** Blocked reasons stored as the run's error (section 4 names the second). */
export type BlockedReason = 'host_not_allowed' | 'headers_key_not_configured';

const FOREIGN_KEY_VIOLATION = '23503';

/** A destination's stored header values, or null when no configured key can read them. */
export function decryptHeaders(keyring: Keyring, stored: string): DestinationHeaders | null {
  const plain = decryptField(keyring, stored);
  if (plain === null) return null;
  try {
    return JSON.parse(plain) as DestinationHeaders;
  } catch {
    return null;
  }
}

/** The refusals that store nothing (section 4), in the order the spec lists them. */
async function loadReplayable(deps: ReplayDeps, projectId: string, input: ReplayInput) {
  const event =
    [...input.eventId].length > MAX_EVENT_ID_LENGTH ? null : await findReplayableEvent(deps.pool, projectId, input.eventId);
  if (event === null) throw errors.notFound('The event was not found.');
  const destination = await findDestinationRow(deps.pool, projectId, input.destinationId);
  if (destination === null) throw errors.notFound('The replay destination was not found.');
  const inputText = event.inputText;
  if (inputText === null) throw new AppError('no_captured_input', 'The event has no captured input to replay.');
  if (destination.disabled) throw new AppError('destination_disabled', 'The replay destination is disabled.');
  return { event: { inputText, output: event.output }, destination };
}

/** What a preview shows as the x-service-replay value: a real send gets a fresh run id. */
export const PREVIEW_RUN_ID = '(run id, set when sent)';

export interface ReplayPreview {
  method: ReplayInput['method'];
  url: string;
  /** Destination header values are "[REDACTED]"; jtrace's own headers are shown. */
  headers: Record<string, string>;
  /** The exact body text a send would carry: the event's recorded input. */
  body: string;
  /** Set when a send would be stored as a blocked run and nothing would leave the server. */
  blocked: BlockedReason | null;
}

/** What createReplay would send, with the same refusals, sending and storing nothing. */
export async function previewReplay(deps: ReplayDeps, projectId: string, input: ReplayInput): Promise<ReplayPreview> {
  const { event, destination } = await loadReplayable(deps, projectId, input);
  const target = buildTargetUrl(destination.base_url, input.path);
  let blocked: BlockedReason | null = null;
  if (!isHostAllowed(target.hostname, deps.allowedHosts)) blocked = 'host_not_allowed';
  else if (decryptHeaders(deps.keyring, destination.headers_encrypted) === null) blocked = 'headers_key_not_configured';
  return {
    method: input.method,
    url: target.toString(),
    headers: storedRequestHeaders(destination.header_names, replayOwnHeaders(deps.version, PREVIEW_RUN_ID)),
    body: event.inputText,
    blocked,
  };
}

type RunStart = Pick<NewRun, 'id' | 'eventId' | 'destinationId' | 'method' | 'path' | 'requestPayloadText' | 'requestHeaders' | 'createdAt'>;

/**
 * Runs one replay and stores it. `options` is internal (tests shorten the timeout or inject
 * the resolver); the route never passes it, so the 10-second limit is not configurable.
 */
export async function createReplay(
  deps: ReplayDeps,
  projectId: string,
  input: ReplayInput,
  options: SendOptions = {},
): Promise<ReplayRun> {
  const { event, destination } = await loadReplayable(deps, projectId, input);
  const runId = randomUUID();
  const own = replayOwnHeaders(deps.version, runId);
  const start: RunStart = {
    id: runId,
    eventId: input.eventId,
    destinationId: destination.id,
    method: input.method,
    path: input.path,
    requestPayloadText: event.inputText,
    requestHeaders: storedRequestHeaders(destination.header_names, own),
    createdAt: new Date(deps.now()),
  };
  const blocked = (reason: BlockedReason): NewRun => ({
    ...start,
    status: 'blocked',
    responseStatus: null,
    responsePayload: null,
    durationMs: null,
    error: reason,
    comparison: null,
    completedAt: new Date(deps.now()),
  });

  let run: NewRun;
  const target = buildTargetUrl(destination.base_url, input.path);
  const hostAllowed = isHostAllowed(target.hostname, deps.allowedHosts);
  // Decrypted only for a host that may be reached: values are never held longer than needed.
  const headers = hostAllowed ? decryptHeaders(deps.keyring, destination.headers_encrypted) : null;
  if (!hostAllowed) {
    run = blocked('host_not_allowed');
  } else if (headers === null) {
    run = blocked('headers_key_not_configured');
  } else {
    const outcome = await sendReplay(
      { url: target, method: input.method, headers: { ...headers, ...own }, body: event.inputText },
      options,
    );
    run = finishRun(start, outcome, headers, event.output, new Date(deps.now()));
  }
  try {
    return await insertRun(deps.pool, projectId, run);
  } catch (error) {
    // The event or destination was deleted while the request was out: nothing to attach it to.
    if ((error as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) throw errors.notFound('The event or destination was deleted meanwhile.');
    throw error;
  }
}

function finishRun(start: RunStart, outcome: SendOutcome, headers: DestinationHeaders, output: unknown, completedAt: Date): NewRun {
  const finished = { ...start, responseStatus: outcome.status, durationMs: outcome.durationMs, completedAt };
  if (outcome.kind === 'failed') {
    return { ...finished, status: 'failed', responsePayload: null, error: outcome.error, comparison: null };
  }
  // Scrubbed before the comparison, so neither can show an echoed header value.
  const response = storedResponsePayload(outcome.body, scrubbableValues(headers));
  const comparison = output === null ? null : computePayloadDiff(output, response).changes;
  return { ...finished, status: 'completed', responsePayload: response, error: null, comparison };
}

export async function getReplay(db: Queryable, projectId: string, id: string): Promise<ReplayRun | null> {
  return isUuid(id) ? findRun(db, projectId, id.toLowerCase()) : null;
}

/** Runs listed per event by the interface: the latest this many. */
export const EVENT_RUNS_LIMIT = 20;

/** The latest runs already sent for an event, newest first, with their stored (redacted) headers. */
export async function listEventReplays(db: Queryable, projectId: string, eventId: string): Promise<ReplayRun[]> {
  return listRunsOfEvent(db, projectId, eventId, EVENT_RUNS_LIMIT);
}
