// The one way pages talk to the server: session-checked JSON routes under /ui/api.

import type { z } from 'zod';
import type { followedFieldSchema, journeyChangesSchema, journeyComparisonSchema, readDiffSchema } from '../../src/http/answer-schemas/forensics.ts';
import type { destinationSchema, replayPreviewSchema, replayRunSchema, urlCheckSchema } from '../../src/http/answer-schemas/replay.ts';
import type { auditEntrySchema } from '../../src/http/answer-schemas/audit.ts';
import type { destinationBodySchema } from '../../src/replay/destination-input.ts';
import type { replayBodySchema } from '../../src/replay/replay-input.ts';
import type { passwordSignInBodySchema, setPasswordBodySchema, signInBodySchema } from '../../src/web/session-input.ts';
import type { sessionSchema } from '../../src/http/answer-schemas/service.ts';
import type { createdUserSchema, invitedMemberSchema, memberSchema, passwordLinkSchema, pendingMemberSchema } from '../../src/http/answer-schemas/teams.ts';
import type { apiKeySchema, createdApiKeySchema } from '../../src/http/answer-schemas/api-keys.ts';
import type { apiKeyBodySchema } from '../../src/auth/api-key-input.ts';
import type { invitationBodySchema } from '../../src/teams/invitation-routes.ts';
import type { alertDeliverySchema, alertRuleSchema, expectationSchema, expectationSuggestionSchema, findingsSummarySchema, newAlertRuleSchema } from '../../src/http/answer-schemas/findings.ts';
import type { alertRuleInputSchema } from '../../src/alerts/rule-input.ts';
import type { expectationInputSchema } from '../../src/findings/expectation-input.ts';
import type { activitySchema, aliasViewSchema, journeyDetailSchema, journeyEventRowSchema, journeySummarySchema, projectSchema, storedEventSchema } from '../../src/http/answer-schemas/reads.ts';

export const API_BASE = '/ui/api';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | null = null,
    /** The spec's `details`: each problem with its field's path (web/src/lib/field-problems.ts words them). */
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/** Called when any request answers 401: the page goes back to sign-in. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  projectId?: string;
  /** Sign-in handles its own 401. */
  quietUnauthorized?: boolean;
  signal?: AbortSignal;
  /** Statuses whose `{ data }` body is an answer, not an error (a blocked replay is 422). */
  dataStatuses?: number[];
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.projectId) headers['x-service-project-id'] = options.projectId;
  const response = await fetch(API_BASE + path, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
    credentials: 'same-origin',
    signal: options.signal ?? null,
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const payload: unknown = text === '' ? null : JSON.parse(text);
  if (!response.ok && !options.dataStatuses?.includes(response.status)) {
    const error = (payload as { error?: { code?: string; message?: string; details?: { path: string; message: string }[] } } | null)?.error;
    const retryAfter = Number(response.headers.get('retry-after'));
    const apiError = new ApiError(
      response.status,
      error?.code ?? 'http_' + response.status,
      error?.message ?? `The server answered ${response.status}.`,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
      Array.isArray(error?.details) ? error.details : [],
    );
    if (response.status === 401 && !options.quietUnauthorized) onUnauthorized();
    throw apiError;
  }
  return (payload as { data: T }).data;
}

/** Query string from a record, leaving out empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : '?' + text;
}

// Answer types come from the answer schemas the OpenAPI document is built from, which
// src/http/answers.int.test.ts checks against real answers: the interface and the API cannot
// drift apart. Type-only imports: nothing of the server reaches the bundle.

export type Project = z.output<typeof projectSchema>;
export type JourneySummary = z.output<typeof journeySummarySchema>;
export type JourneyStatus = JourneySummary['status'];
export type AliasView = z.output<typeof aliasViewSchema>;
export type JourneyDetail = z.output<typeof journeyDetailSchema>;
export type EventRow = z.output<typeof journeyEventRowSchema>;
export type EventDetail = z.output<typeof storedEventSchema>;
export type DiffRow = z.output<typeof readDiffSchema>['rows'][number];
export type Activity = z.output<typeof activitySchema>;
export type ActivityBucket = Activity['buckets'][number];

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export type Destination = z.output<typeof destinationSchema>;
export type ReplayPreview = z.output<typeof replayPreviewSchema>;
export type ReplayRun = z.output<typeof replayRunSchema>;
export type ComparisonRow = NonNullable<ReplayRun['comparison']>[number];

// Journey forensics (docs/forensics.md).

export type FollowedField = z.output<typeof followedFieldSchema>;
export type FollowedStep = FollowedField['steps'][number];
export type Finding = NonNullable<FollowedField['firstLoss']>;
export type StepRef = Pick<Finding, 'eventId' | 'service' | 'name'>;
export type Verdict = FollowedStep['verdict'];
export type Observation = NonNullable<FollowedStep['input']>;
export type JourneyChanges = z.output<typeof journeyChangesSchema>;
export type JourneyChange = JourneyChanges['changes'][number];
export type JourneyComparison = z.output<typeof journeyComparisonSchema>;
export type ComparedPair = JourneyComparison['pairs'][number];
export type ComparedStep = NonNullable<ComparedPair['a']>;

// Request bodies come from the schemas the routes validate them with (z.input: what a client
// sends, before defaults and trimming).
export type SignInRequest = z.input<typeof signInBodySchema>;
export type PasswordSignInRequest = z.input<typeof passwordSignInBodySchema>;
export type SetPasswordRequest = z.input<typeof setPasswordBodySchema>;
export type SessionInfo = z.output<typeof sessionSchema>;
export type Member = z.output<typeof memberSchema>;
export type CreatedUser = z.output<typeof createdUserSchema>;
export type ReplayRequest = z.input<typeof replayBodySchema>;
export type NewDestinationRequest = z.input<typeof destinationBodySchema>;

// Findings, expectations and alerts (docs/findings.md, docs/alerts.md).
export type JourneyFinding = JourneySummary['findings'][number];
export type FindingsSummary = z.output<typeof findingsSummarySchema>;
export type Expectation = z.output<typeof expectationSchema>;
export type ExpectationSuggestion = z.output<typeof expectationSuggestionSchema>;
export type ExpectationPreview = z.output<typeof import('../../src/http/answer-schemas/findings.ts').expectationPreviewSchema>;
export type ExpectationRequest = z.input<typeof expectationInputSchema>;
export type AlertRule = z.output<typeof alertRuleSchema>;
export type NewAlertRule = z.output<typeof newAlertRuleSchema>;
export type AlertRuleRequest = z.input<typeof alertRuleInputSchema>;
export type AlertDelivery = z.output<typeof alertDeliverySchema>;
export type AlertTestDelivery = z.output<typeof import('../../src/http/answer-schemas/findings.ts').alertTestDeliverySchema>;

// Settings of projects, environments and the instance (docs/web-interface.md, "Settings").
export type EnvironmentSettings = z.output<typeof import('../../src/http/answer-schemas/project-settings.ts').environmentSettingsSchema>;
export type EnvironmentDetail = z.output<typeof import('../../src/http/answer-schemas/project-settings.ts').environmentDetailSchema>;
export type SettingsChange = EnvironmentDetail['history'][number];
export type CapturePreview = z.output<typeof import('../../src/http/answer-schemas/project-settings.ts').capturePreviewSchema>;
export type InstanceInfo = z.output<typeof import('../../src/http/answer-schemas/project-settings.ts').instanceSchema>;
export type EnvironmentChangeRequest = import('../../src/projects/settings-input.ts').EnvironmentChangeRequest;
export type CapturePreviewRequest = import('../../src/projects/settings-input.ts').CapturePreviewRequest;
export type NewProjectRequest = import('../../src/projects/settings-input.ts').NewProjectRequest;
export type NewEnvironmentRequest = import('../../src/projects/settings-input.ts').NewEnvironmentRequest;

// Settings: API keys and members (docs/web-interface.md).
export type ApiKey = z.output<typeof apiKeySchema>;
export type CreatedApiKey = z.output<typeof createdApiKeySchema>;
export type NewApiKeyRequest = z.input<typeof apiKeyBodySchema>;
export type PendingMember = z.output<typeof pendingMemberSchema>;
export type InvitedMember = z.output<typeof invitedMemberSchema>;
export type InvitationRequest = z.input<typeof invitationBodySchema>;
export type PasswordLinkAnswer = z.output<typeof passwordLinkSchema>;

// Settings: replay destinations and the audit log.
export type UrlCheckResult = z.output<typeof urlCheckSchema>;
export type AuditEntry = z.output<typeof auditEntrySchema>;

// Problems (docs/problems.md): findings grouped by kind, field and place.
export type Problem = z.output<typeof import('../../src/http/answer-schemas/problems.ts').problemSchema>;
export type ProblemDetail = z.output<typeof import('../../src/http/answer-schemas/problems.ts').problemDetailSchema>;
export type ProblemJourney = z.output<typeof import('../../src/http/answer-schemas/problems.ts').problemJourneySchema>;
export type ProblemStatus = Problem['status'];

// Verifying a fix by replay (docs/problems.md, "Verifying a fix by replay"): written from the
// contract, as the interface may be served by a server without these routes (they answer 404).
export interface ProblemReplayBatch {
  id: string;
  problemId: string;
  destinationId: string;
  destinationName: string;
  status: 'running' | 'done' | 'cancelled';
  requested: number;
  completed: number;
  counts: { kept: number; stillLost: number; failed: number };
  ratePerSecond: number;
  concurrency: number;
  actor: { type: 'user' | 'admin_token' | 'cli'; id: string | null; name: string | null };
  createdAt: string;
  finishedAt: string | null;
}
export type ReplayVerdict = 'pending' | 'kept' | 'still_lost' | 'failed';
export interface ProblemReplayResult {
  journeyId: string;
  verdict: ReplayVerdict;
  replayId: string | null;
  error: { code: string; message: string } | null;
  finishedAt: string | null;
}
