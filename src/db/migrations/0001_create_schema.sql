-- The whole jtrace schema. Every table is keyed by project_id first and refers to its
-- parents through composite foreign keys that include project_id, so a row of one project
-- can never point at another project's row. ON DELETE CASCADE follows the spec's deletion
-- rules: deleting a journey removes its events, aliases, search tokens and replay runs;
-- deleting a destination removes its runs.

CREATE TABLE projects (
  id          uuid        PRIMARY KEY,
  slug        text        NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 64),
  name        text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE environments (
  project_id        uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id                uuid        NOT NULL,
  name              text        NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  capture_mode      text        NOT NULL DEFAULT 'redacted-payload'
                    CHECK (capture_mode IN ('metadata-only', 'allowlisted-fields', 'redacted-payload', 'full-payload')),
  retention_days    integer     NOT NULL CHECK (retention_days >= 1),
  redaction_paths   text[]      NOT NULL DEFAULT '{}',
  capture_allowlist text[]      NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  UNIQUE (project_id, name)
);

-- The secret is never stored: only a peppered HMAC under the key named by hash_key_id.
CREATE TABLE api_keys (
  project_id     uuid        NOT NULL,
  id             uuid        NOT NULL,
  environment_id uuid        NOT NULL,
  name           text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  prefix         text        NOT NULL UNIQUE,
  hash           text        NOT NULL,
  hash_key_id    text        NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_used_at   timestamptz,
  revoked_at     timestamptz,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, environment_id) REFERENCES environments (project_id, id) ON DELETE CASCADE
);

-- One row per journey. The *_event_* columns hold the timeline key (timestamp, received_at,
-- event id) of the event that set label, lastStep and failedStep, so later events can tell
-- whether they come after it in timeline order (event protocol 3.4).
CREATE TABLE journeys (
  project_id              uuid        NOT NULL,
  id                      text        NOT NULL CHECK (length(id) BETWEEN 1 AND 128),
  environment_id          uuid        NOT NULL,
  entity_type             text        NOT NULL,
  entity_id_encrypted     text        NOT NULL,
  status                  text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'failed')),
  event_count             integer     NOT NULL DEFAULT 0,
  started_at              timestamptz NOT NULL,
  last_event_at           timestamptz NOT NULL,
  completed_at            timestamptz,
  services                text[]      NOT NULL DEFAULT '{}',
  label                   text,
  label_event_ts          timestamptz,
  label_event_received_at timestamptz,
  label_event_id          text,
  last_step               text,
  last_step_event_ts      timestamptz,
  last_step_received_at   timestamptz,
  last_step_event_id      text,
  failed_step             text,
  failed_event_ts         timestamptz,
  failed_event_received_at timestamptz,
  failed_event_id         text,
  created_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  -- Lets events require that they share their journey's environment.
  UNIQUE (project_id, id, environment_id),
  FOREIGN KEY (project_id, environment_id) REFERENCES environments (project_id, id) ON DELETE CASCADE,
  CHECK (failed_step IS NULL OR status = 'failed')
);

CREATE INDEX journeys_list ON journeys (project_id, last_event_at DESC, id DESC);
CREATE INDEX journeys_environment_list ON journeys (project_id, environment_id, last_event_at DESC, id DESC);

-- One encrypted alias per (journey, type, normalized value); id gives first-stored order.
CREATE TABLE journey_aliases (
  project_id      uuid        NOT NULL,
  journey_id      text        NOT NULL,
  id              bigint      GENERATED ALWAYS AS IDENTITY,
  alias_type      text        NOT NULL,
  value_encrypted text        NOT NULL,
  token           text        NOT NULL,
  token_key_id    text        NOT NULL,
  displayable     boolean     NOT NULL,
  -- Plain copy only while displayable and free of NUL: the journey list's text filter reads it.
  display_value   text,
  PRIMARY KEY (project_id, journey_id, id),
  UNIQUE (project_id, journey_id, alias_type, token),
  FOREIGN KEY (project_id, journey_id) REFERENCES journeys (project_id, id) ON DELETE CASCADE,
  CHECK (display_value IS NULL OR displayable)
);

-- Exact-value lookup: one indexed probe on (project_id, token) answers search and erasure.
CREATE TABLE search_tokens (
  project_id  uuid NOT NULL,
  token       text NOT NULL,
  journey_id  text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('entity_id', 'alias', 'journey_id', 'trace_id', 'span_id', 'message_id', 'correlation_id')),
  key_id      text NOT NULL,
  PRIMARY KEY (project_id, token, journey_id, kind),
  FOREIGN KEY (project_id, journey_id) REFERENCES journeys (project_id, id) ON DELETE CASCADE
);
CREATE INDEX search_tokens_journey ON search_tokens (project_id, journey_id);

CREATE TABLE events (
  project_id           uuid        NOT NULL,
  id                   text        NOT NULL CHECK (length(id) BETWEEN 1 AND 128),
  journey_id           text        NOT NULL,
  environment_id       uuid        NOT NULL,
  operation            text        NOT NULL CHECK (operation IN ('received', 'identified', 'transformed', 'validated', 'persisted',
                                     'published', 'consumed', 'delivered', 'failed', 'retried', 'completed')),
  name                 text        NOT NULL,
  service              text        NOT NULL,
  event_timestamp      timestamptz NOT NULL,
  received_at          timestamptz NOT NULL,
  duration_ms          integer     CHECK (duration_ms >= 0),
  parent_event_id      text,
  trace_id             text,
  span_id              text,
  message_id           text,
  correlation_id       text,
  has_input            boolean     NOT NULL,
  has_output           boolean     NOT NULL,
  has_error            boolean     NOT NULL,
  input_payload        jsonb,
  output_payload       jsonb,
  payload_diff         jsonb,
  error                jsonb,
  runtime_metadata     jsonb,
  deployment_metadata  jsonb,
  custom_metadata      jsonb,
  -- Ids of the journey_aliases rows this event stated; NULL means not recorded.
  stated_alias_ids     bigint[],
  content_hash         text        NOT NULL,
  content_hash_key_id  text        NOT NULL,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, journey_id, environment_id)
    REFERENCES journeys (project_id, id, environment_id) ON DELETE CASCADE
);
CREATE INDEX events_timeline ON events (project_id, journey_id, event_timestamp, received_at, id);

-- Header values are one encrypted JSON object; only their names are readable.
CREATE TABLE replay_destinations (
  project_id        uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id                uuid        NOT NULL,
  name              text        NOT NULL,
  base_url          text        NOT NULL,
  environment_type  text        NOT NULL CHECK (environment_type IN ('local', 'development', 'test')),
  headers_encrypted text        NOT NULL,
  header_names      text[]      NOT NULL DEFAULT '{}',
  disabled          boolean     NOT NULL DEFAULT false,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);

CREATE TABLE replay_runs (
  project_id       uuid        NOT NULL,
  id               uuid        NOT NULL,
  event_id         text        NOT NULL,
  destination_id   uuid        NOT NULL,
  method           text        NOT NULL CHECK (method IN ('POST', 'PUT', 'PATCH')),
  path             text        NOT NULL,
  request_payload  jsonb,
  request_headers  jsonb       NOT NULL DEFAULT '{}',
  status           text        NOT NULL CHECK (status IN ('completed', 'failed', 'blocked')),
  response_status  integer,
  response_payload jsonb,
  duration_ms      integer,
  error            text,
  comparison       jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  completed_at     timestamptz,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, event_id) REFERENCES events (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, destination_id) REFERENCES replay_destinations (project_id, id) ON DELETE CASCADE
);
CREATE INDEX replay_runs_event ON replay_runs (project_id, event_id);
CREATE INDEX replay_runs_destination ON replay_runs (project_id, destination_id);

-- Audit rows outlive what they describe, so nothing but the project cascades into them.
CREATE TABLE audit_log (
  project_id  uuid        NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id          bigint      GENERATED ALWAYS AS IDENTITY,
  action      text        NOT NULL CHECK (action IN ('journey.deleted', 'erasure.completed', 'range.deleted',
                            'replay_destination.created', 'replay_destination.deleted', 'api_key.created', 'api_key.revoked')),
  details     jsonb       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
