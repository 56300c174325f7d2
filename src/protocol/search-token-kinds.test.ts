import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENTITY_TOKEN_KINDS, EVENT_TOKEN_KINDS, SEARCH_TOKEN_KINDS } from './search-token-kinds.ts';

describe('search token kinds', () => {
  it('are exactly the kinds the search_tokens CHECK constraint allows', () => {
    const schema = readFileSync(new URL('../db/migrations/0001_create_schema.sql', import.meta.url), 'utf8');
    const check = /kind\s+text NOT NULL CHECK \(kind IN \(([^)]*)\)\)/.exec(schema);
    expect(check).not.toBeNull();
    const allowed = [...check![1]!.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    expect(allowed).toEqual([...SEARCH_TOKEN_KINDS]);
  });

  it('split into entity kinds, the journey id and event-field kinds with no kind left over', () => {
    expect(new Set([...ENTITY_TOKEN_KINDS, 'journey_id', ...EVENT_TOKEN_KINDS])).toEqual(new Set(SEARCH_TOKEN_KINDS));
    expect(EVENT_TOKEN_KINDS).toEqual(['trace_id', 'span_id', 'message_id', 'correlation_id']);
  });
});
