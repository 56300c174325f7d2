-- Findings: annotations the background analyzer computes beside each journey (lost and changed
-- fields, duplicated steps, failures, and against an expectation overdue and skipped steps).
-- They never change the journey's status (interface spec, status machine).
--
-- Which journeys to analyse: ingestion stamps findings_pending with a sequence value (and
-- findings_pending_at, for the lag) in the same statement that writes the journey's summary, so
-- the mark commits or rolls back with the events. The analyzer clears the mark only if it still
-- holds the value it read, in the transaction that replaces the journey's findings: an event
-- committed while the journey was being analysed leaves the mark set, and the journey is analysed
-- again. A plain cursor over event order could skip a batch that committed after a later one.

CREATE SEQUENCE journey_findings_pending_seq;

ALTER TABLE journeys ADD COLUMN findings_pending bigint;
ALTER TABLE journeys ADD COLUMN findings_pending_at timestamptz;

-- Journeys stored before findings existed are analysed once.
UPDATE journeys SET findings_pending = nextval('journey_findings_pending_seq'), findings_pending_at = now();

CREATE INDEX journeys_findings_pending ON journeys (findings_pending) WHERE findings_pending IS NOT NULL;

CREATE TABLE journey_findings (
  project_id      uuid        NOT NULL,
  journey_id      text        NOT NULL,
  ordinal         integer     NOT NULL CHECK (ordinal >= 0),
  environment_id  uuid        NOT NULL,
  entity_type     text        NOT NULL,
  kind            text        NOT NULL CHECK (kind IN ('lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step')),
  -- The field path of lost and changed; the missing step's name for skipped_step.
  path            text,
  step_event_id   text,
  step_service    text,
  step_name       text,
  in_transit      boolean     NOT NULL DEFAULT false,
  from_event_id   text,
  from_service    text,
  from_name       text,
  -- When the journey's last event was, at the analysis: the summary's time window.
  observed_at     timestamptz NOT NULL,
  -- When it was first found: re-analysing a journey keeps it, so an alert window counts a finding once.
  first_found_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, journey_id, ordinal),
  FOREIGN KEY (project_id, journey_id) REFERENCES journeys (project_id, id) ON DELETE CASCADE
);

CREATE INDEX journey_findings_kind ON journey_findings (project_id, kind, path COLLATE "C", journey_id);
CREATE INDEX journey_findings_window ON journey_findings (project_id, observed_at);
CREATE INDEX journey_findings_found ON journey_findings (project_id, kind, first_found_at);

-- What a journey of one entity type should look like (steps in order, the final step, the
-- longest gap between steps and the deadline of the whole journey).
CREATE TABLE expectations (
  project_id        uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  entity_type       text        NOT NULL CHECK (length(entity_type) BETWEEN 1 AND 128),
  steps             jsonb       NOT NULL,
  final_step        text        NOT NULL,
  max_gap_seconds   integer     CHECK (max_gap_seconds > 0),
  deadline_seconds  integer     CHECK (deadline_seconds > 0),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, entity_type)
);
