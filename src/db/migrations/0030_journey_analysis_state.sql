-- The findings analyzer walks a journey incrementally: each pass reads only the events stored
-- since its last one, continuing from what it kept of the walk (docs/findings.md, "Incremental
-- analysis"). Re-reading a journey whole at every pass made a journey fed continuously cost more
-- at every pass, without bound, and held up every other journey's findings.
--
-- One row per journey the analyzer walked, keyed by project first and removed with its journey
-- (ON DELETE CASCADE), so every deletion path (journey delete, erasure, range deletion, retention
-- and partition drops) removes it as it removes the findings.
--
-- walked: the events walked; with the journey's event_count and the events after the position,
-- read in one snapshot, it tells whether an event committed late sorts before the position.
-- pos_*: the timeline key (event_timestamp, received_at, id) of the last event walked, NULL
-- before any. rewalking: the walk started again from the first event and has not reached the end
-- yet (the stored findings stay as they were until it does). generation: written at every store;
-- a store checks it is still the one it read. state: what the walk needs to go on (the last
-- event that stored a payload, keyed hashes of the change keys and of the first recording of
-- each step's payloads, the findings so far): references and hashes, never a payload value.
CREATE TABLE journey_analysis (
  project_id    uuid        NOT NULL,
  journey_id    text        NOT NULL,
  walked        integer     NOT NULL CHECK (walked >= 0),
  pos_ts        timestamptz,
  pos_received  timestamptz,
  pos_id        text,
  rewalking     boolean     NOT NULL,
  generation    bigint      NOT NULL,
  state         jsonb       NOT NULL,
  PRIMARY KEY (project_id, journey_id),
  FOREIGN KEY (project_id, journey_id) REFERENCES journeys (project_id, id) ON DELETE CASCADE,
  CHECK ((pos_ts IS NULL) = (pos_id IS NULL) AND (pos_received IS NULL) = (pos_id IS NULL))
);
