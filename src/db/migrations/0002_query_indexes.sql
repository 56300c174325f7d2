-- Indexes of the read routes (interface-spec section 4: search, journey list, journey events),
-- so that each page is a short index walk whatever the size of the project.
--
-- Ids sort in byte order (event protocol: "ids in byte order" = COLLATE "C"). The keyset
-- indexes of 0001 put ids in the database's default collation, which only equals byte order
-- on a C-collated database; on any other (a PostgreSQL 15 server created with en_US.UTF-8, say)
-- ORDER BY id COLLATE "C" could not use them and every page would sort. They are rebuilt here
-- under the same names with the id column in "C", which also serves the old prefix lookups
-- (retention and range deletion by environment and lastEventAt).
--
-- Keyset indexes, one per filter combination the list can name:
--   journeys_list                     project, all environments
--   journeys_environment_list         one environment (API keys always; admin with environment=)
--   journeys_status_list              status=, all environments
--   journeys_environment_status_list  status= within one environment
-- A GIN index on services answers service= when the service is rare (a common one is found by
-- walking the keyset index). Trigram indexes answer the journey list's q (case-insensitive
-- substring) on lower(label) and on lower(display_value) of displayable aliases; they need
-- pg_trgm, a trusted extension any database owner may create on PostgreSQL 13 and later.
-- Search needs nothing new: search_tokens' primary key starts with (project_id, token).

CREATE EXTENSION IF NOT EXISTS pg_trgm;

DROP INDEX journeys_list;
DROP INDEX journeys_environment_list;
CREATE INDEX journeys_list ON journeys (project_id, last_event_at DESC, id COLLATE "C" DESC);
CREATE INDEX journeys_environment_list ON journeys (project_id, environment_id, last_event_at DESC, id COLLATE "C" DESC);
CREATE INDEX journeys_status_list ON journeys (project_id, status, last_event_at DESC, id COLLATE "C" DESC);
CREATE INDEX journeys_environment_status_list
  ON journeys (project_id, environment_id, status, last_event_at DESC, id COLLATE "C" DESC);

CREATE INDEX journeys_services ON journeys USING gin (services);
-- Not partial: the planner reads the statistics of an index expression only from a non-partial
-- index, and without them it guesses how common q is (a guess of 0.2 % for a word in 80 % of
-- labels sent the list through the trigram index over 800,000 rows: a second instead of a
-- millisecond). A thousand histogram entries let it tell a rare q from a common one.
CREATE INDEX journeys_label_trgm ON journeys USING gin (lower(label) gin_trgm_ops);
CREATE INDEX journey_aliases_display_trgm ON journey_aliases USING gin (lower(display_value) gin_trgm_ops);
ALTER INDEX journeys_label_trgm ALTER COLUMN 1 SET STATISTICS 1000;
ALTER INDEX journey_aliases_display_trgm ALTER COLUMN 1 SET STATISTICS 1000;

-- Timeline order is (event_timestamp, received_at, id in byte order): same reason as above.
DROP INDEX events_timeline;
CREATE INDEX events_timeline ON events (project_id, journey_id, event_timestamp, received_at, id COLLATE "C");
