-- Trace and span ids are found through tokens kept on the event itself instead of search_tokens
-- rows: two of a batch's three token rows were these, each with its heap row, two index entries
-- and a foreign-key check. An event now carries the token of its normalized trace id and span id
-- (the same keyed MAC as a search token, event-protocol 4.2; NULL when the id is absent or
-- blank) and the key id that made them; search probes a partial index of each column beside
-- search_tokens, and rotate:reencrypt re-keys the columns from the clear ids of the same row.
--
-- Rows stored before this migration keep their trace_id and span_id search_tokens rows: a token
-- is a MAC under ENCRYPTION_KEY, which the database never holds, so SQL cannot tell which
-- event's value made which of a journey's rows. They stay exactly as searchable (search reads
-- search_tokens for every kind), rotation keeps re-keying them, and deleting a journey deletes
-- them; only events stored from now on use the columns.
ALTER TABLE events
  ADD COLUMN trace_token text,
  ADD COLUMN span_token text,
  ADD COLUMN search_key_id text;

CREATE INDEX events_trace_token ON events (project_id, trace_token) WHERE trace_token IS NOT NULL;
CREATE INDEX events_span_token ON events (project_id, span_token) WHERE span_token IS NOT NULL;
