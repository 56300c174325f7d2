-- Findings stored one row per journey, and the analyzer's mark moved out of journeys.
--
-- A journey's findings were one row each (0007): a journey with 35 findings cost 35 heap rows,
-- 140 index entries and 35 foreign-key checks to store, most of the analyzer's cost. They are
-- now one row per journey holding the findings as parallel arrays in the analyzer's order (the
-- array index is the ordinal); a journey without findings has no row. Only the two indexes the
-- windowed reads need remain: the summary's (observed_at) and the alert rules' (last_found_at,
-- the latest first_found_at of the row's findings).
--
-- The mark (which journeys to analyse) was a column of journeys with a partial index: clearing it
-- rewrote the journey's entries in every journeys index, GIN ones included. It is now a row of its
-- own, written in the same statements as before, so it still commits or rolls back with the events
-- and the analyzer deletes it only if it still holds the value it read.

CREATE TABLE journey_findings_pending (
  project_id  uuid        NOT NULL,
  journey_id  text        NOT NULL,
  -- A value of journey_findings_pending_seq, new at every mark: the analyzer's clear matches it.
  pending     bigint      NOT NULL,
  -- When the oldest change not yet analysed was marked (the lag).
  pending_at  timestamptz NOT NULL,
  PRIMARY KEY (project_id, journey_id),
  FOREIGN KEY (project_id, journey_id) REFERENCES journeys (project_id, id) ON DELETE CASCADE
);

-- The analyzer takes the oldest marks first.
CREATE INDEX journey_findings_pending_order ON journey_findings_pending (pending);

INSERT INTO journey_findings_pending (project_id, journey_id, pending, pending_at)
SELECT project_id, id, findings_pending, COALESCE(findings_pending_at, now()) FROM journeys WHERE findings_pending IS NOT NULL;

DROP INDEX journeys_findings_pending;
ALTER TABLE journeys DROP COLUMN findings_pending, DROP COLUMN findings_pending_at;

ALTER TABLE journey_findings RENAME TO journey_findings_0007;
ALTER TABLE journey_findings_0007 RENAME CONSTRAINT journey_findings_pkey TO journey_findings_0007_pkey;
DROP INDEX journey_findings_kind;
DROP INDEX journey_findings_window;
DROP INDEX journey_findings_found;

CREATE TABLE journey_findings (
  project_id      uuid          NOT NULL,
  journey_id      text          NOT NULL,
  environment_id  uuid          NOT NULL,
  entity_type     text          NOT NULL,
  -- When the journey's last event was, at the analysis: the summary's time window.
  observed_at     timestamptz   NOT NULL,
  -- The latest of first_found_at: an alert window reads the journeys with a finding found in it.
  last_found_at   timestamptz   NOT NULL,
  -- One element per finding, in the analyzer's order; every array has one per finding.
  kind            text[]        NOT NULL,
  -- The field path of lost and changed; the missing step's name for skipped_step.
  path            text[]        NOT NULL,
  step_event_id   text[]        NOT NULL,
  step_service    text[]        NOT NULL,
  step_name       text[]        NOT NULL,
  in_transit      boolean[]     NOT NULL,
  from_event_id   text[]        NOT NULL,
  from_service    text[]        NOT NULL,
  from_name       text[]        NOT NULL,
  -- When each was first found: re-analysing a journey keeps it, so an alert window counts a finding once.
  first_found_at  timestamptz[] NOT NULL,
  PRIMARY KEY (project_id, journey_id),
  FOREIGN KEY (project_id, journey_id) REFERENCES journeys (project_id, id) ON DELETE CASCADE,
  CHECK (cardinality(kind) >= 1 AND array_ndims(kind) = 1
    AND cardinality(path) = cardinality(kind) AND cardinality(step_event_id) = cardinality(kind)
    AND cardinality(step_service) = cardinality(kind) AND cardinality(step_name) = cardinality(kind)
    AND cardinality(in_transit) = cardinality(kind) AND cardinality(from_event_id) = cardinality(kind)
    AND cardinality(from_service) = cardinality(kind) AND cardinality(from_name) = cardinality(kind)
    AND cardinality(first_found_at) = cardinality(kind)),
  CHECK (kind <@ ARRAY['lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step']::text[])
);

CREATE INDEX journey_findings_window ON journey_findings (project_id, observed_at);
CREATE INDEX journey_findings_found ON journey_findings (project_id, last_found_at);

-- Every stored finding moves, in its order; the rows of one journey share its environment,
-- entity type and analysis time.
INSERT INTO journey_findings (project_id, journey_id, environment_id, entity_type, observed_at, last_found_at, kind, path,
    step_event_id, step_service, step_name, in_transit, from_event_id, from_service, from_name, first_found_at)
SELECT project_id, journey_id, min(environment_id::text)::uuid, min(entity_type), max(observed_at), max(first_found_at),
       array_agg(kind ORDER BY ordinal), array_agg(path ORDER BY ordinal), array_agg(step_event_id ORDER BY ordinal),
       array_agg(step_service ORDER BY ordinal), array_agg(step_name ORDER BY ordinal), array_agg(in_transit ORDER BY ordinal),
       array_agg(from_event_id ORDER BY ordinal), array_agg(from_service ORDER BY ordinal), array_agg(from_name ORDER BY ordinal),
       array_agg(first_found_at ORDER BY ordinal)
  FROM journey_findings_0007
 GROUP BY project_id, journey_id;

DROP TABLE journey_findings_0007;
