// Key lookups of concurrent ingestion requests share one statement. Every single event
// (POST /v1/events) reads its API key's row, and with its environment's capture settings, before
// its body is used: one round trip per event, where a batch pays one per 100 events, and on a
// busy machine each round trip costs the server and PostgreSQL a wake-up. While one lookup
// statement runs, the prefixes of requests that arrive gather for the next, which starts as soon
// as it ends. Every request is still answered from a statement that started after it arrived, so a
// key revoked (or an environment's settings changed) before a request arrives is seen by it,
// exactly as with a lookup of its own (docs/ingestion.md, "Single events share commits").

import type { Queryable } from '../db/pool.ts';
import { findApiKeysByPrefixes, type ApiKeyRecord } from './api-keys-sql.ts';

/** Prefixes read by one statement at most: a statement's parameters stay small. */
export const MAX_PREFIXES_PER_LOOKUP = 500;

export interface ApiKeyLookups {
  find(prefix: string): Promise<ApiKeyRecord | null>;
}

export interface LookupObserver {
  /** One statement read this many requests' keys. */
  statement(requests: number): void;
}

export function createApiKeyLookups(db: Queryable, observer?: LookupObserver): ApiKeyLookups {
  let running = false;
  let waiting: Array<{ prefix: string; resolve: (row: ApiKeyRecord | null) => void; reject: (error: unknown) => void }> = [];

  const run = () => {
    if (running || waiting.length === 0) return;
    const group = waiting.slice(0, MAX_PREFIXES_PER_LOOKUP);
    waiting = waiting.slice(group.length);
    running = true;
    observer?.statement(group.length);
    findApiKeysByPrefixes(db, [...new Set(group.map((w) => w.prefix))])
      .then(
        (rows) => group.forEach((w) => w.resolve(rows.get(w.prefix) ?? null)),
        // Each request answers its own failure, as with a lookup of its own.
        (error: unknown) => group.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        running = false;
        run();
      });
  };

  return {
    find(prefix) {
      return new Promise((resolve, reject) => {
        waiting.push({ prefix, resolve, reject });
        run();
      });
    },
  };
}
