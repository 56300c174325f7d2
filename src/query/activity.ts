// Journeys over time for the web interface's chart: the journey list's filters, scope and
// refusals, counted by bucket of lastEventAt and status instead of listed.

import type { ReadScope } from '../auth/credentials.ts';
import { errors } from '../http/errors.ts';
import type { QueryValues } from '../http/query.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { baseScan, commonTrigramsFor, type ReadDeps } from './journeys.ts';
import { selectJourneyActivity } from './journeys-sql.ts';
import { microsToMillis } from './micros.ts';
import { LIST_QUERY, parseListParams, type ListParams } from './params.ts';

// The list's filters without its paging, plus the number of buckets.
const { limit: _limit, cursor: _cursor, ...LIST_FILTERS } = LIST_QUERY;
export const ACTIVITY_QUERY = { ...LIST_FILTERS, buckets: 'Buckets of the chart, a whole number from 1 to 200 (default 60).' } as const;
/** Buckets of the chart when not asked: one a minute over the default last hour. */
export const DEFAULT_ACTIVITY_BUCKETS = 60;
/** Most buckets a chart may ask for: more bars than a laptop screen can show apart. */
export const MAX_ACTIVITY_BUCKETS = 200;

export interface ActivityParams {
  list: ListParams;
  buckets: number;
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

export function parseActivityParams(query: QueryValues<keyof typeof ACTIVITY_QUERY>, nowMs: number): ActivityParams {
  const { buckets: rawBuckets, ...filters } = query;
  const list = parseListParams(filters, nowMs);
  let buckets = DEFAULT_ACTIVITY_BUCKETS;
  if (rawBuckets !== undefined) {
    buckets = /^\d{1,3}$/.test(rawBuckets) ? Number(rawBuckets) : 0;
    if (buckets < 1 || buckets > MAX_ACTIVITY_BUCKETS) {
      throw errors.invalidQuery('buckets', `buckets must be a whole number from 1 to ${MAX_ACTIVITY_BUCKETS}.`);
    }
  }
  return { list, buckets };
}

/**
 * Whole seconds per bucket so that `buckets` of them cover since..until (until defaults to the
 * server clock); the answer has as many buckets as needed to reach until, at most `buckets`.
 */
export async function journeyActivity(deps: ReadDeps, scope: ReadScope, params: ActivityParams, nowMs: number): Promise<Activity> {
  const sinceUs = params.list.sinceUs as bigint;
  let untilUs = params.list.untilUs ?? BigInt(nowMs) * 1000n;
  if (untilUs <= sinceUs) untilUs = sinceUs + 1_000_000n;
  const windowUs = untilUs - sinceUs;
  const bucketSeconds = Math.max(1, Math.ceil(Number(windowUs) / 1e6 / params.buckets));
  const bucketUs = BigInt(bucketSeconds) * 1_000_000n;
  const count = Number((windowUs + bucketUs - 1n) / bucketUs);
  const buckets: ActivityBucket[] = Array.from({ length: count }, (_, i) => ({
    start: formatTimestamp(microsToMillis(sinceUs + BigInt(i) * bucketUs)),
    active: 0,
    completed: 0,
    failed: 0,
  }));
  const base = await baseScan(deps, scope, { ...params.list, limit: 0, after: null });
  if (base !== null) {
    const { list } = params;
    const scan = { ...base, sinceUs, untilUs, status: list.status, service: list.service, entityType: list.entityType, finding: list.finding };
    for (const row of await selectJourneyActivity(deps.db, scan, list.text, bucketUs, await commonTrigramsFor(deps, list.text))) {
      const bucket = buckets[row.bucket];
      if (bucket !== undefined && (row.status === 'active' || row.status === 'completed' || row.status === 'failed')) {
        bucket[row.status] += row.count;
      }
    }
  }
  return { since: formatTimestamp(microsToMillis(sinceUs)), until: formatTimestamp(microsToMillis(untilUs)), bucketSeconds, buckets };
}
