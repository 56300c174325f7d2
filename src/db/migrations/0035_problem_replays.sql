-- Verifying a fix by replay (docs/problems.md, "Verifying a fix by replay"): from a problem, an
-- operator replays the recorded input of the problem's step from up to 1,000 of its journeys to a
-- destination running the fixed service, and reads how many now keep the field.
--
-- The batch and each journey's result are stored, so a batch outlives the instance that started
-- it: a worker instance runs it under a lease on the batch row (claimed with SKIP LOCKED, renewed
-- while it runs, released at a clean stop), and a restarted or other worker resumes the journeys
-- still pending. The batch row is the replay history: its actor, destination, limits and times.

CREATE TABLE problem_replays (
  project_id      uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id              uuid        NOT NULL,
  problem_id      uuid        NOT NULL,
  -- A destination's delete removes its runs (docs/replay.md); its batches go with them.
  destination_id  uuid        NOT NULL,
  status          text        NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'cancelled')),
  requested       integer     NOT NULL CHECK (requested BETWEEN 0 AND 1000),
  rate_per_second numeric     NOT NULL CHECK (rate_per_second BETWEEN 0.1 AND 50),
  concurrency     integer     NOT NULL CHECK (concurrency BETWEEN 1 AND 8),
  actor_type      text        NOT NULL CHECK (actor_type IN ('user', 'admin_token', 'cli')),
  actor_id        text,
  actor_name      text,
  created_at      timestamptz NOT NULL,
  finished_at     timestamptz,
  -- The worker running it and until when; NULL or past: any worker may take it.
  lease_owner     uuid,
  lease_until     timestamptz,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, problem_id) REFERENCES problems (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, destination_id) REFERENCES replay_destinations (project_id, id) ON DELETE CASCADE,
  CHECK ((status = 'running') = (finished_at IS NULL))
);
CREATE INDEX problem_replays_of_problem ON problem_replays (project_id, problem_id, created_at DESC, id DESC);
CREATE INDEX problem_replays_running ON problem_replays (created_at) WHERE status = 'running';
CREATE INDEX problem_replays_destination ON problem_replays (project_id, destination_id);

-- One row per journey of a batch. A deleted or erased journey takes its row with it: a result
-- names the journey, which the deletion promises to remove.
CREATE TABLE problem_replay_results (
  project_id    uuid        NOT NULL,
  batch_id      uuid        NOT NULL,
  ordinal       integer     NOT NULL,
  journey_id    text        NOT NULL,
  -- The recorded event replayed, chosen at the start; NULL when the journey had none at the step.
  event_id      text,
  verdict       text        NOT NULL DEFAULT 'pending' CHECK (verdict IN ('pending', 'kept', 'still_lost', 'failed')),
  -- The replay run (GET /v1/replays/:replayId); no foreign key: a run goes with its event.
  replay_id     uuid,
  error_code    text,
  error_message text,
  started_at    timestamptz,
  finished_at   timestamptz,
  PRIMARY KEY (project_id, batch_id, ordinal),
  UNIQUE (project_id, batch_id, journey_id),
  FOREIGN KEY (project_id, batch_id) REFERENCES problem_replays (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, journey_id) REFERENCES journeys (project_id, id) ON DELETE CASCADE,
  CHECK ((verdict = 'pending') = (finished_at IS NULL))
);
CREATE INDEX problem_replay_results_pending ON problem_replay_results (project_id, batch_id, ordinal) WHERE verdict = 'pending';
CREATE INDEX problem_replay_results_journey ON problem_replay_results (project_id, journey_id);

-- Starting and cancelling a batch are project actions with their actor, as a status change is.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action IN ('journey.deleted', 'erasure.completed',
  'range.deleted', 'replay_destination.created', 'replay_destination.deleted', 'api_key.created', 'api_key.revoked',
  'member.granted', 'member.revoked', 'problem.status_changed', 'problem_replay.started', 'problem_replay.cancelled'));
