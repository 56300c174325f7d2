// The trigrams found in at least 1 % of labels or of displayable alias values, read from the
// statistics ANALYZE keeps of them (migration 0023) and held per instance for a while: a stale
// set only changes which part of q probes the index, never what the list answers.

import type { Queryable } from '../db/pool.ts';

export interface CommonTrigrams {
  label: ReadonlySet<string>;
  alias: ReadonlySet<string>;
}

export const NO_COMMON_TRIGRAMS: CommonTrigrams = { label: new Set(), alias: new Set() };

/** A trigram in this share of the values or more is read whole at a cost that grows with the table. */
export const COMMON_TRIGRAM_SHARE = 0.01;
const REFRESH_MS = 10 * 60_000;

const STATISTICS: Record<keyof CommonTrigrams, string> = {
  label: 'journeys_label_trigrams',
  alias: 'journey_aliases_display_trigrams',
};

export async function readCommonTrigrams(db: Queryable): Promise<CommonTrigrams> {
  const result = await db.query<{ name: string; trigram: string }>(
    `SELECT s.statistics_name AS name, u.trigram
       FROM pg_stats_ext_exprs s
       CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(trigram, share)
      WHERE s.statistics_name = ANY($1::text[]) AND u.trigram IS NOT NULL AND u.share >= $2`,
    [Object.values(STATISTICS), COMMON_TRIGRAM_SHARE],
  );
  const label = new Set<string>();
  const alias = new Set<string>();
  for (const row of result.rows) (row.name === STATISTICS.label ? label : alias).add(row.trigram);
  return { label, alias };
}

export interface CommonTrigramSource {
  current(): Promise<CommonTrigrams>;
}

/**
 * Reads the statistics at first use and again once they are older than ten minutes, the list
 * meanwhile going on with what it has. Without them (never analysed, or not readable by this
 * role) nothing is common, and q probes the indexes whole, as it always may.
 */
export function commonTrigramSource(db: Queryable, nowMs: () => number = Date.now): CommonTrigramSource {
  let known: CommonTrigrams | null = null;
  let readAt = 0;
  let reading: Promise<CommonTrigrams> | null = null;
  const read = () =>
    (reading ??= readCommonTrigrams(db)
      .catch(() => NO_COMMON_TRIGRAMS)
      .then((trigrams) => {
        known = trigrams;
        readAt = nowMs();
        reading = null;
        return trigrams;
      }));
  return {
    async current() {
      if (known === null) return read();
      if (nowMs() - readAt >= REFRESH_MS) void read();
      return known;
    },
  };
}
