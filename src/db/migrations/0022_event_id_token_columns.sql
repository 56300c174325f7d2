-- Trace and span ids are found through tokens kept beside each event's id instead of
-- search_tokens rows: two of a batch's three token rows were these, each with its heap row, two
-- index entries and a foreign-key check. event_ids (one narrow row per event, not partitioned,
-- migration 0017) now carries the token of the event's normalized trace id and span id (the same
-- keyed MAC as a search token, event-protocol 4.2; NULL when the id is absent or blank) and the
-- key id that made them; search probes a partial index of each column beside search_tokens, and
-- rotate:reencrypt re-keys them from the clear ids of the event. On event_ids rather than on
-- events: an index of partitioned events is one index per day, and a search would probe every
-- one of them (docs/benchmarks.md, "Event storage": 0.3 ms against 1.6 ms with ten partitions).
--
-- Rows stored before this migration keep their trace_id and span_id search_tokens rows: a token
-- is a MAC under ENCRYPTION_KEY, which the database never holds, so SQL cannot tell which
-- event's value made which of a journey's rows. They stay exactly as searchable (search reads
-- search_tokens for every kind), rotation keeps re-keying them, and deleting a journey deletes
-- them; only events stored from now on use the columns.
ALTER TABLE event_ids
  ADD COLUMN trace_token text,
  ADD COLUMN span_token text,
  ADD COLUMN search_key_id text;

CREATE INDEX event_ids_trace_token ON event_ids (project_id, trace_token) WHERE trace_token IS NOT NULL;
CREATE INDEX event_ids_span_token ON event_ids (project_id, span_token) WHERE span_token IS NOT NULL;
