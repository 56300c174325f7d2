-- event_ids rows are written by the statement that inserts the events (a data-modifying CTE
-- beside the insert of the events in src/ingest/ingest-sql.ts), not by the statement trigger of
-- migration 0017. The trigger kept a transition table of every inserted row, payloads included,
-- and ran a second INSERT after the statement: about a fifth of the cost of writing a batch's
-- events (docs/benchmarks.md, "Event partitions").
--
-- What the trigger guaranteed (every event has its event_ids row, so a resent event is found
-- and a concurrent duplicate fails on event_ids' primary key) now rests on there being one
-- writer of events: insertEvents, which ingestion, OTLP and coalesced single events all reach
-- through storeEvents. src/ingest/event-writers.test.ts fails when any other file of the
-- repository inserts into events without writing event_ids in the same statement.
DROP TRIGGER events_record_ids ON events;
DROP FUNCTION jtrace_record_event_ids();
