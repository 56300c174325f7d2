-- Indexes that keep the reads of a very long journey bounded (docs/operations.md, "Very long journeys").
--
-- A journey's event list bounds its scan of the day partitions by the journey's first and last
-- arrival, min(received_at) and max(received_at) of its event_ids rows (src/query/events-sql.ts).
-- On event_ids_journey (project_id, journey_id) each of them read every event_ids row of the
-- journey: a page of 100 events of a 200,000-event journey read 400,000 rows and took 130 ms,
-- and grew with the journey (docs/operations.md, "Very long journeys"). With received_at last in
-- the index, each is one probe at an end of the journey's range. The index keeps serving what
-- the old one served (deleting a journey finds its ids by its first two columns), so it
-- replaces it rather than adding a third index that every event write would pay for.
-- Building it reads event_ids once (one narrow row per event) and holds writes to it meanwhile.
CREATE INDEX event_ids_journey_arrivals ON event_ids (project_id, journey_id, received_at);
DROP INDEX event_ids_journey;

-- The journey read lists a journey's first 10,000 aliases in read order (alias type in byte
-- order, then first stored; src/query/details-sql.ts). Without an index in that order it read
-- and sorted every alias of the journey, and a key may state 1,000 new ones per event. A row is
-- added here only when a journey gains an alias, not per event.
CREATE INDEX journey_aliases_read_order ON journey_aliases (project_id, journey_id, alias_type COLLATE "C", id);
