// The one way pages talk to the server: session-checked JSON routes under /ui/api.

export const API_BASE = '/ui/api';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | null = null,
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
  method?: 'GET' | 'POST' | 'DELETE';
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
    const error = (payload as { error?: { code?: string; message?: string } } | null)?.error;
    const retryAfter = Number(response.headers.get('retry-after'));
    const apiError = new ApiError(
      response.status,
      error?.code ?? 'http_' + response.status,
      error?.message ?? `The server answered ${response.status}.`,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
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

export type JourneyStatus = 'active' | 'completed' | 'failed';

export interface Project {
  id: string;
  name: string;
  slug: string;
  environments: string[];
}

export interface JourneySummary {
  journeyId: string;
  entity: { type: string; id: string };
  status: JourneyStatus;
  eventCount: number;
  startedAt: string;
  lastEventAt: string;
  label: string | null;
  lastStep: string | null;
  failedStep: string | null;
  displayableAliases: { type: string; value: string }[];
  environment: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface AliasView {
  type: string;
  displayValue: string | null;
  displayable: boolean;
}

export interface JourneyDetail extends Omit<JourneySummary, 'displayableAliases'> {
  aliases: AliasView[];
  completedAt: string | null;
}

export interface EventRow {
  id: string;
  operation: string;
  name: string;
  service: string;
  eventTimestamp: string;
  receivedAt: string;
  durationMs: number | null;
  hasInput: boolean;
  hasOutput: boolean;
  hasError: boolean;
  deploymentMetadata: Record<string, string> | null;
}

export interface EventDetail extends EventRow {
  journeyId: string;
  parentEventId: string | null;
  traceId: string | null;
  spanId: string | null;
  messageId: string | null;
  correlationId: string | null;
  inputPayload: unknown;
  outputPayload: unknown;
  error: { type?: string; message: string; code?: string; stack?: string } | null;
  runtimeMetadata: unknown;
  customMetadata: unknown;
  aliases: AliasView[] | null;
}

export interface DiffRow {
  path: string;
  kind: 'lost' | 'renamed' | 'changed' | 'added' | 'removed';
  before?: unknown;
  after?: unknown;
  renamedFrom?: string;
}

export interface ActivityBucket {
  start: string;
  active: number;
  completed: number;
  failed: number;
}

export interface Activity {
  since: string;
  until: string;
  bucketSeconds: number;
  buckets: ActivityBucket[];
}

export interface Destination {
  id: string;
  name: string;
  baseUrl: string;
  environmentType: string;
  headerNames: string[];
  disabled: boolean;
}

export interface ReplayPreview {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface ComparisonRow {
  path: string;
  kind: string;
  before?: unknown;
  after?: unknown;
}

export interface ReplayRun {
  id: string;
  status: string;
  method: string;
  path: string;
  responseStatus: number | null;
  responsePayload: unknown;
  durationMs: number | null;
  error: string | null;
  comparison: ComparisonRow[] | null;
}

// Journey forensics (docs/forensics.md).

export interface StepRef {
  eventId: string;
  service: string;
  name: string;
}

export type Verdict = 'absent' | 'appeared' | 'unchanged' | 'changed' | 'lost' | 'redacted' | 'not_captured';
export type Observation = { state: 'present'; value: unknown } | { state: 'missing' } | { state: 'redacted'; value: string };

export interface FollowedStep extends StepRef {
  operation: string;
  eventTimestamp: string;
  input: Observation | null;
  output: Observation | null;
  verdict: Verdict;
  handOff: { from: StepRef; verdict: Verdict } | null;
}

export interface Finding extends StepRef {
  verdict: 'lost' | 'changed';
  inTransit: boolean;
  from: StepRef | null;
}

export interface FollowedField {
  path: string;
  steps: FollowedStep[];
  firstLoss: Finding | null;
  firstDifference: Finding | null;
  truncated: boolean;
}

export interface JourneyChange {
  path: string;
  kind: 'lost' | 'renamed' | 'changed' | 'appeared' | 'removed';
  renamedFrom?: string;
  steps: (StepRef & { inTransit: boolean; from: StepRef | null })[];
  stepCount: number;
}

export interface JourneyChanges {
  changes: JourneyChange[];
  truncated: boolean;
  changesTruncated: boolean;
}

export interface ComparedStep {
  index: number;
  eventId: string;
  service: string;
  name: string;
  operation: string;
  eventTimestamp: string;
  durationMs: number | null;
  hasError: boolean;
  inputStored: boolean;
  outputStored: boolean;
}

export interface ComparedPair {
  status: 'matched' | 'moved' | 'only_a' | 'only_b';
  a: ComparedStep | null;
  b: ComparedStep | null;
  inputDiff: { rows: DiffRow[]; truncated: boolean } | null;
  outputDiff: { rows: DiffRow[]; truncated: boolean } | null;
  differs: boolean;
}

export interface JourneyComparison {
  a: JourneyDetail;
  b: JourneyDetail;
  truncated: { a: boolean; b: boolean };
  pairs: ComparedPair[];
  firstDifference: number | null;
  exactAlignment: boolean;
}
