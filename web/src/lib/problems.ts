// Pure helpers of the Problems pages (docs/problems.md): the list's parameters read from the
// page's address, and the sparkline's points.

/** The list's statuses as the API names them; the default leaves ignored and expected out. */
export const PROBLEM_STATUSES = ['open', 'regressed', 'resolved', 'ignored', 'expected'] as const;
export const PROBLEM_SORTS = { journeys: 'Most journeys', lastSeen: 'Last seen', firstSeen: 'First seen' } as const;
export type ProblemSort = keyof typeof PROBLEM_SORTS;

/** Parameters the list page passes to GET /problems: only those the API knows, unknown values dropped. */
export function problemListParams(params: URLSearchParams): Record<string, string | undefined> {
  const text = (name: string) => params.get(name)?.trim() || undefined;
  const status = text('status');
  const sort = text('sort');
  return {
    status: status === 'all' || (status !== undefined && status.split(',').every((s) => (PROBLEM_STATUSES as readonly string[]).includes(s))) ? status : undefined,
    kind: text('kind'),
    environment: text('environment'),
    service: text('service'),
    release: text('release'),
    sort: sort !== undefined && sort in PROBLEM_SORTS ? sort : undefined,
    cursor: text('cursor'),
  };
}

/**
 * The points of a sparkline `width` x `height` for the counts: x spread evenly, y from the
 * bottom with the largest count at the top (an all-zero series is a flat line at the bottom).
 */
export function sparklinePoints(counts: readonly number[], width: number, height: number): string {
  if (counts.length === 0) return '';
  const max = Math.max(...counts, 0);
  const step = counts.length > 1 ? width / (counts.length - 1) : 0;
  const round = (n: number) => Math.round(n * 10) / 10;
  return counts.map((count, i) => `${round(i * step)},${round(max === 0 ? height : height - (count / max) * height)}`).join(' ');
}

/** Hours or days of a series with at least one journey, and its total: the chart's words for screen readers. */
export function seriesSummary(counts: readonly number[]): { total: number; busiest: number } {
  return { total: counts.reduce((a, b) => a + b, 0), busiest: Math.max(0, ...counts) };
}
