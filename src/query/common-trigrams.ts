// How common each trigram of labels and of displayable alias values is, read from the statistics
// ANALYZE keeps of them (migration 0023) and held per instance for a while: stale statistics only
// change which part of q probes the index (src/query/rare-substring.ts), never what the list answers.

import type { Queryable } from '../db/pool.ts';
import type { TrigramStatistics } from './rare-substring.ts';

export interface CommonTrigrams {
  label: TrigramStatistics | null;
  alias: TrigramStatistics | null;
}

export const NO_COMMON_TRIGRAMS: CommonTrigrams = { label: null, alias: null };

const REFRESH_MS = 10 * 60_000;

const STATISTICS: Record<keyof CommonTrigrams, string> = {
  label: 'journeys_label_trigrams',
  alias: 'journey_aliases_display_trigrams',
};

/**
 * pg_stats_ext_exprs shows the statistics of tables the role owns (or is a member of the owner
 * of); for any other role they are missing, and q probes the indexes whole, as it always may.
 */
export async function readCommonTrigrams(db: Queryable): Promise<CommonTrigrams> {
  const result = await db.query<{ name: string; trigrams: string[]; shares: number[]; rows: number }>(
    `SELECT s.statistics_name AS name, s.most_common_elems::text::text[] AS trigrams, s.most_common_elem_freqs AS shares,
            c.reltuples::float8 AS rows
       FROM pg_stats_ext_exprs s
       JOIN pg_class c ON c.oid = format('%I.%I', s.schemaname, s.tablename)::regclass
      WHERE s.statistics_name = ANY($1::text[]) AND s.most_common_elems IS NOT NULL AND c.reltuples > 0`,
    [Object.values(STATISTICS)],
  );
  const found: CommonTrigrams = { label: null, alias: null };
  for (const row of result.rows) {
    // The element shares are followed by their minimum, maximum and the share of nulls.
    const shares = new Map(row.trigrams.map((trigram, i) => [trigram, row.shares[i]!] as const));
    const statistics = { shares, floor: Math.min(...shares.values()), rows: row.rows };
    if (row.name === STATISTICS.label) found.label = statistics;
    else found.alias = statistics;
  }
  return found;
}

export interface CommonTrigramSource {
  current(): Promise<CommonTrigrams>;
}

/** Reads the statistics at first use and again once they are ten minutes old, the list meanwhile going on with what it has. */
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
