// The journeys list's filters live in the URL so that a view can be shared and reloaded.

export const WINDOWS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 } as const;
export type WindowName = keyof typeof WINDOWS | 'custom';
export const FILTER_KEYS = ['status', 'environment', 'service', 'entityType', 'q', 'finding', 'path'] as const;

export interface ListFilters {
  window: WindowName;
  since: string;
  until: string | undefined;
  status: string | undefined;
  environment: string | undefined;
  service: string | undefined;
  entityType: string | undefined;
  q: string | undefined;
  /** A finding kind, and a field path with it (docs/findings.md). */
  finding: string | undefined;
  path: string | undefined;
}

function isoOrUndefined(value: string | null): string | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/**
 * A relative window is measured from now at each load; `at` pins its start while paging
 * (the API asks for a fixed since across pages).
 */
export function filtersFromParams(params: URLSearchParams, now = Date.now()): ListFilters {
  const requested = params.get('window') ?? 'day';
  const window: WindowName = requested in WINDOWS || requested === 'custom' ? (requested as WindowName) : 'day';
  const relativeSince = new Date(now - WINDOWS[window === 'custom' ? 'day' : window]).toISOString();
  const since = isoOrUndefined(params.get('at')) ?? (window === 'custom' ? isoOrUndefined(params.get('since')) : undefined) ?? relativeSince;
  const pick = (key: string) => params.get(key)?.trim() || undefined;
  return {
    window,
    since,
    until: window === 'custom' ? isoOrUndefined(params.get('until')) : undefined,
    status: pick('status'),
    environment: pick('environment'),
    service: pick('service'),
    entityType: pick('entityType'),
    q: pick('q'),
    finding: pick('finding'),
    path: pick('finding') ? pick('path') : undefined,
  };
}

/** The API's query parameters for these filters (shared by the list and its chart). */
export function apiParams(filters: ListFilters): Record<string, string | undefined> {
  const { window: _window, ...rest } = filters;
  return rest;
}

export function hasNarrowingFilter(filters: ListFilters): boolean {
  return FILTER_KEYS.some((key) => filters[key] !== undefined);
}

/** A `datetime-local` input's value for an ISO instant, in the browser's time zone. */
export function localInputValue(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

const WINDOW_LABELS: Record<WindowName, string> = { hour: 'last hour', day: 'last day', week: 'last week', month: 'last 30 days', custom: 'custom window' };

/** The folded filters' line on a phone: the window and how many other filters narrow the list. */
export function filtersSummary(filters: ListFilters): string {
  const narrowing = FILTER_KEYS.filter((key) => key !== 'path' && filters[key] !== undefined).length;
  return narrowing === 0 ? WINDOW_LABELS[filters.window] : `${WINDOW_LABELS[filters.window]}, ${narrowing} more`;
}

/** The folded chart's line on a phone: the journeys by status. */
export function activitySummary(activity: { buckets: Array<{ completed: number; active: number; failed: number }> }): string {
  const sum = (status: 'completed' | 'active' | 'failed') => activity.buckets.reduce((total, bucket) => total + bucket[status], 0);
  return `${sum('completed')} completed, ${sum('active')} active, ${sum('failed')} failed`;
}
